<%@ WebService Language="C#" Class="Constructs.SoapHeaders" %>
