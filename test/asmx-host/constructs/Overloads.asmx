<%@ WebService Language="C#" Class="Constructs.Overloads" %>
