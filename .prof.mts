import { readXml } from "./templates/runtime/xml/scan.ts";
const SOAP11 =
  `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" ` +
  `xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body>` +
  `<InsertSubscriberSid xmlns="http://tempuri.org/"><strUsername>u</strUsername><strPassword>p</strPassword>` +
  `<strEmail>a@b</strEmail><strName>N</strName><strFormat>HTML</strFormat><strCountryCode>46</strCountryCode>` +
  `<strPhoneNumber>123</strPhoneNumber><strMailingListID>1</strMailingListID></InsertSubscriberSid></soap:Body>` +
  `</soap:Envelope>`;
let k = 0;
for (let r = 0; r < 5; r++) {
  const t = process.hrtime.bigint();
  for (let i = 0; i < 200000; i++) k += readXml(SOAP11).children.length;
  console.log(Number(process.hrtime.bigint() - t) / 200000 / 1000, "us");
}
