<%@ WebService Language="C#" Class="Constructs.DataSets" %>
