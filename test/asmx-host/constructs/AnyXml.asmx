<%@ WebService Language="C#" Class="Constructs.AnyXml" %>
