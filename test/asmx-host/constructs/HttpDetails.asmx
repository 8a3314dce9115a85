<%@ WebService Language="C#" Class="Constructs.HttpDetails" %>
