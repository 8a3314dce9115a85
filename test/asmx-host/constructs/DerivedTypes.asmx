<%@ WebService Language="C#" Class="Constructs.DerivedTypes" %>
