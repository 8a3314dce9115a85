<%@ WebService Language="C#" CodeBehind="~/App_Code/Headers.cs" Class="Fixtures.Headers" %>
