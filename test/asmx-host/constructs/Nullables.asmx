<%@ WebService Language="C#" Class="Constructs.Nullables" %>
