<%@ WebService Language="C#" Class="Constructs.Enums" %>
