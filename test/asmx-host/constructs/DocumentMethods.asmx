<%@ WebService Language="C#" Class="Constructs.DocumentMethods" %>
