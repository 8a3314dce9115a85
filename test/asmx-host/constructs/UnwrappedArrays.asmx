<%@ WebService Language="C#" Class="Constructs.UnwrappedArrays" %>
