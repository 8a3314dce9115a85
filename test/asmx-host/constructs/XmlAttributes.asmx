<%@ WebService Language="C#" Class="Constructs.XmlAttributes" %>
