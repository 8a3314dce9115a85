<%@ WebService Language="C#" Class="Constructs.OutParams" %>
