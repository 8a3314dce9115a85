// The exchanges recorded against the construct fixtures (constructs/, see constructs.ts): for each, what is
// sent on which binding, and what the answer must show besides matching its recording byte for byte.
// constructs.test.ts sends them; docs/asmx-evidence/<construct>.md sums up what they show.

import type { ConstructService } from "./constructs.js";

export type Binding = "soap11" | "soap12" | "get" | "post";

export interface Exchange {
  /** File name of the recording (without .txt), unique within the service. */
  readonly name: string;
  readonly service: ConstructService;
  readonly binding: Binding;
  /** What the exchange is about (the recording's first line). */
  readonly note: string;
  /** SOAP: the operation whose SOAPAction is sent (service namespace + this), unless `action` is given. */
  readonly op: string;
  /** SOAP: the content of soap:Body. HTTP GET: the query string. HTTP POST: the form body. */
  readonly body: string;
  /** SOAP: the content of soap:Header, if any. */
  readonly header?: string;
  /** SOAP: the whole SOAPAction value (without quotes) when it is not namespace + op. */
  readonly action?: string;
  /** HTTP: the path after the .asmx (default `/${op}`). */
  readonly path?: string;
  /** Expected status. */
  readonly status: number;
  /** Texts the answer's body must contain (each found literally). */
  readonly contains?: readonly string[];
  /** Texts the answer's body must not contain. */
  readonly lacks?: readonly string[];
}

export const NAMESPACES: Record<ConstructService, string> = {
  SoapHeaders: "http://tempuri.org/constructs/headers/",
  DerivedTypes: "http://tempuri.org/constructs/derived/",
  Nullables: "http://tempuri.org/constructs/nullables/",
  DataSets: "http://tempuri.org/constructs/datasets/",
  Overloads: "http://tempuri.org/constructs/overloads/",
  XmlAttributes: "http://tempuri.org/constructs/attributes/",
  AnyXml: "http://tempuri.org/constructs/anyxml/",
  UnwrappedArrays: "http://tempuri.org/constructs/arrays/",
  Enums: "http://tempuri.org/constructs/enums/",
  HttpDetails: "http://tempuri.org/constructs/http/",
  DocumentMethods: "http://tempuri.org/constructs/document/",
};

/** `<op xmlns="ns">inner</op>`: a wrapped request in the service's namespace. */
const w = (service: ConstructService, op: string, inner = "") => `<${op} xmlns="${NAMESPACES[service]}">${inner}</${op}>`;

const H = "SoapHeaders" as const;
const auth = (user: string, password: string) => `<AuthHeader xmlns="${NAMESPACES[H]}"><Username>${user}</Username><Password>${password}</Password></AuthHeader>`;
const trace = (id: string, hops: number) => `<TraceHeader xmlns="${NAMESPACES[H]}"><CorrelationId>${id}</CorrelationId><Hops>${hops}</Hops></TraceHeader>`;

const D = "DerivedTypes" as const;
const shape = (type: string | null, inner: string, element = "shape") =>
  `<${element}${type === null ? "" : ` xsi:type="${type}"`}>${inner}</${element}>`;

const N = "Nullables" as const;
const DS = "DataSets" as const;
const O = "Overloads" as const;
const A = "XmlAttributes" as const;
const X = "AnyXml" as const;
const U = "UnwrappedArrays" as const;
const E = "Enums" as const;
const P = "HttpDetails" as const;
const M = "DocumentMethods" as const;

const FAULT11 = "<faultcode>soap:Client</faultcode>";
const FAULT11_SERVER = "<faultcode>soap:Server</faultcode>";

export const EXCHANGES: readonly Exchange[] = [
  // ---- SOAP headers ----
  { service: H, name: "soap11-login-ok", binding: "soap11", op: "Login", header: auth("alice", "wonderland"), body: w(H, "Login"), status: 200, contains: ["<soap:Header><SessionHeader", "<SessionId>s-alice</SessionId>", "<LoginResult>true</LoginResult>"], note: "SOAP 1.1 Login with the right credentials in AuthHeader: the answer carries the out header SessionHeader" },
  { service: H, name: "soap12-login-ok", binding: "soap12", op: "Login", header: auth("alice", "wonderland"), body: w(H, "Login"), status: 200, contains: ["<soap:Header><SessionHeader", "<LoginResult>true</LoginResult>"], note: "SOAP 1.2 Login with the right credentials" },
  { service: H, name: "soap11-login-bad-password", binding: "soap11", op: "Login", header: auth("alice", "nope"), body: w(H, "Login"), status: 200, contains: ["<LoginResult>false</LoginResult>"], lacks: ["SessionHeader"], note: "SOAP 1.1 Login with a wrong password: false, and no SessionHeader (an out header left null is not written)" },
  { service: H, name: "soap11-login-no-header", binding: "soap11", op: "Login", body: w(H, "Login"), status: 200, contains: ["<LoginResult>false</LoginResult>"], note: "SOAP 1.1 Login without the Required AuthHeader: the method runs with Auth null (Required is not enforced)" },
  { service: H, name: "soap11-login-header-wrong-namespace", binding: "soap11", op: "Login", header: `<AuthHeader xmlns="urn:example:elsewhere"><Username>alice</Username><Password>wonderland</Password></AuthHeader>`, body: w(H, "Login"), status: 200, contains: ["<LoginResult>false</LoginResult>"], note: "SOAP 1.1 Login with an AuthHeader in another namespace: not bound, ignored (no mustUnderstand)" },
  { service: H, name: "soap11-whoami-auth", binding: "soap11", op: "WhoAmI", header: auth("bob", "x"), body: w(H, "WhoAmI"), status: 200, contains: ["<WhoAmIResult>bob</WhoAmIResult>"], note: "SOAP 1.1 WhoAmI with an optional AuthHeader" },
  { service: H, name: "soap11-whoami-none", binding: "soap11", op: "WhoAmI", body: w(H, "WhoAmI"), status: 200, contains: ["<WhoAmIResponse xmlns=\"http://tempuri.org/constructs/headers/\" />"], note: "SOAP 1.1 WhoAmI without the header: a null string result is left out of the response element" },
  { service: H, name: "soap11-echo-trace", binding: "soap11", op: "Echo", header: trace("c-1", 2), body: w(H, "Echo", "<text>hi</text>"), status: 200, contains: ["<Hops>3</Hops>", "<CorrelationId>c-1</CorrelationId>"], note: "SOAP 1.1 Echo with an InOut TraceHeader: it comes back changed by the method" },
  { service: H, name: "soap12-echo-trace", binding: "soap12", op: "Echo", header: trace("c-2", 0), body: w(H, "Echo", "<text>hi</text>"), status: 200, contains: ["<Hops>1</Hops>"], note: "SOAP 1.2 Echo with an InOut TraceHeader" },
  { service: H, name: "soap11-echo-no-trace", binding: "soap11", op: "Echo", body: w(H, "Echo", "<text>hi</text>"), status: 200, lacks: ["TraceHeader"], note: "SOAP 1.1 Echo without the InOut header: none comes back" },
  { service: H, name: "soap11-status-two-headers", binding: "soap11", op: "Status", header: `<SessionHeader xmlns="${NAMESPACES[H]}"><SessionId>s-9</SessionId><Expires>2030-01-01T00:00:00Z</Expires></SessionHeader>${auth("carol", "x")}`, body: w(H, "Status"), status: 200, contains: ["session=s-9 auth=carol"], note: "SOAP 1.1 Status with two in headers" },
  { service: H, name: "get-login", binding: "get", op: "Login", body: "", status: 200, contains: [">false</boolean>"], note: "HTTP GET Login: header methods are offered on HTTP GET/POST, where no header can be sent (Auth is null)" },
  { service: H, name: "post-echo", binding: "post", op: "Echo", body: "text=hi", status: 200, contains: [">hi</string>"], lacks: ["Trace"], note: "HTTP POST Echo: the InOut header is simply absent" },

  // ---- derived types ----
  { service: D, name: "soap11-getshape-circle", binding: "soap11", op: "GetShape", body: w(D, "GetShape", "<kind>circle</kind>"), status: 200, contains: ['<GetShapeResult xsi:type="Circle">'], note: "SOAP 1.1 GetShape(circle): the result element names its class with xsi:type" },
  { service: D, name: "soap11-getshape-triangle", binding: "soap11", op: "GetShape", body: w(D, "GetShape", "<kind>triangle</kind>"), status: 200, contains: ['<GetShapeResult xsi:type="Triangle">'], note: "SOAP 1.1 GetShape(triangle): a class reachable only through [XmlInclude] on the service" },
  { service: D, name: "soap12-getshape-square", binding: "soap12", op: "GetShape", body: w(D, "GetShape", "<kind>square</kind>"), status: 200, contains: ['xsi:type="Square"'], note: "SOAP 1.2 GetShape(square)" },
  { service: D, name: "soap11-getshape-null", binding: "soap11", op: "GetShape", body: w(D, "GetShape", "<kind>hexagon</kind>"), status: 200, contains: ['<GetShapeResponse xmlns="http://tempuri.org/constructs/derived/" />'], note: "SOAP 1.1 GetShape(unknown kind): a null record result is left out" },
  { service: D, name: "soap11-area-circle", binding: "soap11", op: "Area", body: w(D, "Area", shape("Circle", "<Name>c</Name><Radius>2</Radius>")), status: 200, contains: ["<AreaResult>Circle c 12.566370614359172</AreaResult>"], note: "SOAP 1.1 Area(shape xsi:type=\"Circle\"): an unprefixed xsi:type resolves in the default namespace (the service's)" },
  { service: D, name: "soap11-area-prefixed", binding: "soap11", op: "Area", body: w(D, "Area", `<shape xmlns:d="${NAMESPACES[D]}" xsi:type="d:Square"><Name>s</Name><Side>3</Side></shape>`), status: 200, contains: ["<AreaResult>Square s 9</AreaResult>"], note: "SOAP 1.1 Area(shape xsi:type=\"d:Square\"), a prefixed QName" },
  { service: D, name: "soap11-area-triangle", binding: "soap11", op: "Area", body: w(D, "Area", shape("Triangle", "<Name>t</Name><Base>3</Base><Height>4</Height>")), status: 200, contains: ["<AreaResult>Triangle t 6</AreaResult>"], note: "SOAP 1.1 Area with the [XmlInclude]-only Triangle" },
  { service: D, name: "soap11-area-no-type", binding: "soap11", op: "Area", body: w(D, "Area", shape(null, "<Name>x</Name>")), status: 500, contains: [FAULT11], note: "SOAP 1.1 Area with no xsi:type: the declared type is abstract" },
  { service: D, name: "soap11-area-unknown-type", binding: "soap11", op: "Area", body: w(D, "Area", shape("Hexagon", "<Name>h</Name>")), status: 500, contains: [FAULT11], note: "SOAP 1.1 Area with xsi:type=\"Hexagon\", a type the service does not know" },
  { service: D, name: "soap11-area-wrong-namespace-type", binding: "soap11", op: "Area", body: w(D, "Area", `<shape xmlns:o="urn:example:other" xsi:type="o:Circle"><Name>c</Name><Radius>1</Radius></shape>`), status: 500, contains: [FAULT11], note: "SOAP 1.1 Area with xsi:type naming Circle in another namespace" },
  { service: D, name: "soap11-area-unrelated-type", binding: "soap11", op: "Area", body: w(D, "Area", shape("Vehicle", "<Plate>p</Plate><Wheels>4</Wheels>")), status: 500, contains: [FAULT11], note: "SOAP 1.1 Area with xsi:type=\"Vehicle\", a known type that is not a Shape" },
  { service: D, name: "soap11-allshapes", binding: "soap11", op: "AllShapes", body: w(D, "AllShapes"), status: 200, contains: ['<Shape xsi:type="Circle">', '<Shape xsi:type="Square">', '<Shape xsi:type="Triangle">'], note: "SOAP 1.1 AllShapes: an array of the base type; each item is a Shape element with xsi:type" },
  { service: D, name: "soap11-classes", binding: "soap11", op: "Classes", body: w(D, "Classes", `<shapes>${shape("Square", "<Name>a</Name><Side>1</Side>", "Shape")}${shape("Circle", "<Name>b</Name><Radius>1</Radius>", "Shape")}<Shape xsi:nil="true" /></shapes>`), status: 200, contains: ["<ClassesResult>Square,Circle,null</ClassesResult>"], note: "SOAP 1.1 Classes: an array of the base type sent with derived items and a nil item" },
  { service: D, name: "soap11-unitcircle", binding: "soap11", op: "UnitCircle", body: w(D, "UnitCircle"), status: 200, contains: ["<UnitCircleResult><Name>unit</Name><Radius>1</Radius></UnitCircleResult>"], note: "SOAP 1.1 UnitCircle: a result declared as the subclass carries no xsi:type" },
  { service: D, name: "soap11-getvehicle-truck", binding: "soap11", op: "GetVehicle", body: w(D, "GetVehicle", "<truck>true</truck>"), status: 200, contains: ['<GetVehicleResult xsi:type="Truck">'], note: "SOAP 1.1 GetVehicle(true): a concrete base type answered with a subclass" },
  { service: D, name: "soap11-getvehicle-base", binding: "soap11", op: "GetVehicle", body: w(D, "GetVehicle", "<truck>false</truck>"), status: 200, contains: ["<GetVehicleResult><Plate>CAR-1</Plate>"], note: "SOAP 1.1 GetVehicle(false): the base type itself, no xsi:type" },
  { service: D, name: "get-getvehicle-truck", binding: "get", op: "GetVehicle", body: "truck=true", status: 200, contains: ['<Vehicle xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="Truck" xmlns="http://tempuri.org/constructs/derived/">'], note: "HTTP GET GetVehicle(true): the root element is the base type's, with xsi:type" },
  { service: D, name: "get-allshapes", binding: "get", op: "AllShapes", body: "", status: 200, contains: ['<Shape xsi:type="Triangle">'], note: "HTTP GET AllShapes" },

  // ---- nullables ----
  { service: N, name: "soap11-next-value", binding: "soap11", op: "Next", body: w(N, "Next", "<n>5</n>"), status: 200, contains: ["<NextResult>6</NextResult>"], note: "SOAP 1.1 Next(5)" },
  { service: N, name: "soap11-next-nil", binding: "soap11", op: "Next", body: w(N, "Next", '<n xsi:nil="true" />'), status: 200, contains: ['<NextResult xsi:nil="true" />'], note: "SOAP 1.1 Next(n nil): a null int? result is written as xsi:nil, not left out" },
  { service: N, name: "soap11-next-absent", binding: "soap11", op: "Next", body: w(N, "Next"), status: 200, contains: ['<NextResult xsi:nil="true" />'], note: "SOAP 1.1 Next with n left out: null as well" },
  { service: N, name: "soap11-next-empty", binding: "soap11", op: "Next", body: w(N, "Next", "<n />"), status: 500, contains: [FAULT11], note: "SOAP 1.1 Next(<n />): an empty element is not null for int?" },
  { service: N, name: "soap12-lastseen-null", binding: "soap12", op: "LastSeen", body: w(N, "LastSeen", "<user>nobody</user>"), status: 200, contains: ['<LastSeenResult xsi:nil="true" />'], note: "SOAP 1.2 LastSeen(unknown): a null DateTime? result" },
  { service: N, name: "soap11-lastseen-value", binding: "soap11", op: "LastSeen", body: w(N, "LastSeen", "<user>alice</user>"), status: 200, contains: ["<LastSeenResult>2024-05-06T07:08:09Z</LastSeenResult>"], note: "SOAP 1.1 LastSeen(alice): a UTC DateTime" },
  { service: N, name: "soap11-favourite-value", binding: "soap11", op: "Favourite", body: w(N, "Favourite", "<user>alice</user>"), status: 200, contains: ["<FavouriteResult>Green</FavouriteResult>"], note: "SOAP 1.1 Favourite(alice): an enum? result" },
  { service: N, name: "soap11-favourite-null", binding: "soap11", op: "Favourite", body: w(N, "Favourite", "<user>bob</user>"), status: 200, contains: ['<FavouriteResult xsi:nil="true" />'], note: "SOAP 1.1 Favourite(bob): a null enum? result" },
  { service: N, name: "soap11-describe", binding: "soap11", op: "Describe", body: w(N, "Describe", '<count>3</count><when xsi:nil="true" /><color>Red</color>'), status: 200, contains: ["count=3 when=null color=Red flag=null"], note: "SOAP 1.1 Describe with nullable parameters given, nil and left out" },
  { service: N, name: "soap11-getreading-full", binding: "soap11", op: "GetReading", body: w(N, "GetReading", "<full>true</full>"), status: 200, contains: ["<Value>42</Value>", "<Amount>12.34</Amount>"], note: "SOAP 1.1 GetReading(true): a record with nullable fields set" },
  { service: N, name: "soap11-getreading-empty", binding: "soap11", op: "GetReading", body: w(N, "GetReading", "<full>false</full>"), status: 200, contains: ['<Value xsi:nil="true" />', '<Color xsi:nil="true" />'], lacks: ["<Note xsi:nil"], note: "SOAP 1.1 GetReading(false): null nullable fields are written xsi:nil; a null string field is left out" },
  { service: N, name: "soap11-echoreading", binding: "soap11", op: "EchoReading", body: w(N, "EchoReading", '<reading><Value xsi:nil="true" /><Color>Blue</Color><Note>n</Note></reading>'), status: 200, contains: ['<Value xsi:nil="true" />', '<At xsi:nil="true" />', "<Color>Blue</Color>"], note: "SOAP 1.1 EchoReading: a record with nil, absent and set nullable fields" },
  { service: N, name: "get-lastseen-null", binding: "get", op: "LastSeen", body: "user=nobody", status: 200, contains: ['<dateTime xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:nil="true" xmlns="http://tempuri.org/constructs/nullables/" />'], note: "HTTP GET LastSeen(unknown): the null result is a nil root element" },
  { service: N, name: "get-favourite-value", binding: "get", op: "Favourite", body: "user=alice", status: 200, contains: [">Green</Color>"], note: "HTTP GET Favourite(alice)" },
  { service: N, name: "get-next-not-offered", binding: "get", op: "Next", body: "n=5", status: 500, note: "HTTP GET Next: a method with a nullable parameter is not offered on HTTP GET" },

  // ---- DataSets ----
  { service: DS, name: "soap11-alltypes", binding: "soap11", op: "AllTypes", body: w(DS, "AllTypes"), status: 200, contains: ["<AllTypesResult><xs:schema", "diffgr:diffgram", 'type="xs:short"', 'type="xs:base64Binary"', 'msdata:DataType="System.Guid', 'type="xs:duration"'], note: "SOAP 1.1 AllTypes: one table with a column of every type a DataSet carries, as schema + diffgram" },
  { service: DS, name: "soap12-customersandorders", binding: "soap12", op: "CustomersAndOrders", body: w(DS, "CustomersAndOrders"), status: 200, contains: ["<Customers diffgr:id=", "<Orders diffgr:id=", '<xs:keyref name="CustomerOrders" refer="Constraint1">'], note: "SOAP 1.2 CustomersAndOrders: two tables; the relation is an xs:keyref in the inline schema" },
  { service: DS, name: "soap11-empty", binding: "soap11", op: "Empty", body: w(DS, "Empty"), status: 200, contains: ["<EmptyResult><xs:schema"], note: "SOAP 1.1 Empty: a DataSet without tables" },
  { service: DS, name: "soap11-typedinventory", binding: "soap11", op: "TypedInventory", body: w(DS, "TypedInventory"), status: 200, contains: ["<TypedInventoryResult>", "diffgr:diffgram"], note: "SOAP 1.1 TypedInventory: a typed DataSet" },
  { service: DS, name: "soap11-table", binding: "soap11", op: "Table", body: w(DS, "Table"), status: 200, contains: ["<TableResult><xs:schema", "<Pairs"], note: "SOAP 1.1 Table: a DataTable result" },
  { service: DS, name: "soap11-count", binding: "soap11", op: "Count", body: w(DS, "Count", `<data><xs:schema id="Sent" xmlns="" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:msdata="urn:schemas-microsoft-com:xml-msdata"><xs:element name="Sent" msdata:IsDataSet="true"><xs:complexType><xs:choice minOccurs="0" maxOccurs="unbounded"><xs:element name="A"><xs:complexType><xs:sequence><xs:element name="X" type="xs:int" minOccurs="0" /></xs:sequence></xs:complexType></xs:element><xs:element name="B"><xs:complexType><xs:sequence><xs:element name="Y" type="xs:string" minOccurs="0" /><xs:element name="Z" type="xs:short" minOccurs="0" /></xs:sequence></xs:complexType></xs:element></xs:choice></xs:complexType></xs:element></xs:schema><diffgr:diffgram xmlns:msdata="urn:schemas-microsoft-com:xml-msdata" xmlns:diffgr="urn:schemas-microsoft-com:xml-diffgram-v1"><Sent xmlns=""><A diffgr:id="A1" msdata:rowOrder="0"><X>1</X></A><A diffgr:id="A2" msdata:rowOrder="1"><X>2</X></A><B diffgr:id="B1" msdata:rowOrder="0"><Y>y</Y><Z>-3</Z></B></Sent></diffgr:diffgram></data>`), status: 200, contains: ["<CountResult>Sent A:2x1,B:1x2</CountResult>"], note: "SOAP 1.1 Count: a DataSet with two tables sent as a parameter" },
  { service: DS, name: "get-alltypes", binding: "get", op: "AllTypes", body: "", status: 200, contains: ["<DataSet", "diffgr:diffgram"], note: "HTTP GET AllTypes: the DataSet as the root element's content" },

  // ---- overloads ----
  { service: O, name: "soap11-add", binding: "soap11", op: "Add", body: w(O, "Add", "<a>1</a><b>2</b>"), status: 200, contains: ["<AddResult>3</AddResult>"], note: "SOAP 1.1 Add(int, int)" },
  { service: O, name: "soap11-adddoubles", binding: "soap11", op: "AddDoubles", body: w(O, "AddDoubles", "<a>1.5</a><b>2.25</b>"), status: 200, contains: ["<AddDoublesResult>3.75</AddDoublesResult>"], note: "SOAP 1.1 the overload with MessageName AddDoubles: its element and SOAPAction are AddDoubles" },
  { service: O, name: "soap12-addthree", binding: "soap12", op: "AddThree", body: w(O, "AddThree", "<a>1</a><b>2</b><c>3</c>"), status: 200, contains: ["<AddThreeResult>6</AddThreeResult>"], note: "SOAP 1.2 the overload AddThree" },
  { service: O, name: "soap11-adddoubles-add-action", binding: "soap11", op: "Add", body: w(O, "AddDoubles", "<a>1.5</a><b>2.25</b>"), status: 200, contains: ["<AddResult>0</AddResult>"], note: "SOAP 1.1 an AddDoubles body sent with the SOAPAction of Add: dispatched on SOAPAction to Add, whose a and b are not found and default to 0" },
  { service: O, name: "soap11-ping-dotted", binding: "soap11", op: "Service.Ping", body: w(O, "Service.Ping"), status: 200, contains: ["<Service.PingResult>pong</Service.PingResult>"], note: "SOAP 1.1 a MessageName with a dot: element, SOAPAction and result element all use it" },
  { service: O, name: "get-adddoubles", binding: "get", op: "AddDoubles", body: "a=1.5&b=2.25", status: 200, contains: [">3.75</double>"], note: "HTTP GET the overload at /AddDoubles" },
  { service: O, name: "post-ping-dotted", binding: "post", op: "Service.Ping", body: "", status: 200, contains: [">pong</string>"], note: "HTTP POST at /Service.Ping" },

  // ---- XML attributes ----
  { service: A, name: "soap11-getproduct", binding: "soap11", op: "GetProduct", body: w(A, "GetProduct", "<id>7</id>"), status: 200, contains: ['<GetProductResult Id="7" sku="SKU-7" Added="2024-02-03T04:05:06Z">', '<Price currency="EUR">9.5</Price>'], note: "SOAP 1.1 GetProduct: attributes and text content on records" },
  { service: A, name: "soap11-echoproduct", binding: "soap11", op: "EchoProduct", body: w(A, "EchoProduct", '<product Id="3" sku="X"><Title>T</Title><Price currency="USD">1.25</Price></product>'), status: 200, contains: ['Id="3" sku="X" Added="0001-01-01T00:00:00"', '<Price currency="USD">1.25</Price>'], note: "SOAP 1.1 EchoProduct: a value-type attribute left out comes back as its default" },
  { service: A, name: "soap11-echoproduct-bad-attribute", binding: "soap11", op: "EchoProduct", body: w(A, "EchoProduct", '<product Id="x"><Title>T</Title></product>'), status: 500, contains: [FAULT11], note: "SOAP 1.1 EchoProduct with Id=\"x\" (not an int)" },
  { service: A, name: "get-getproduct", binding: "get", op: "GetProduct", body: "id=4", status: 200, contains: ['xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" Id="4" sku="SKU-4" Added="2024-02-03T04:05:06Z"', '<Price currency="EUR">9.5</Price>'], note: "HTTP GET GetProduct" },

  // ---- XML as XML (xs:any) ----
  { service: X, name: "soap11-getelement", binding: "soap11", op: "GetElement", body: w(X, "GetElement"), status: 200, contains: ['<GetElementResult><order xmlns="urn:example:orders" id="7">'], note: "SOAP 1.1 GetElement: an XmlElement result is the element itself inside the result element" },
  { service: X, name: "soap12-getnode", binding: "soap12", op: "GetNode", body: w(X, "GetNode"), status: 200, contains: ['<GetNodeResult><Rates xmlns="">'], note: "SOAP 1.2 GetNode: an XmlNode result (the DailyInfo ...XML shape)" },
  { service: X, name: "soap11-describeelement", binding: "soap11", op: "DescribeElement", body: w(X, "DescribeElement", '<element><q:thing xmlns:q="urn:example:q"><q:a /><q:b /></q:thing></element>'), status: 200, contains: ["<DescribeElementResult>{urn:example:q}thing children=2</DescribeElementResult>"], note: "SOAP 1.1 DescribeElement: an XmlElement parameter" },
  { service: X, name: "soap11-echonode-text", binding: "soap11", op: "EchoNode", body: w(X, "EchoNode", "<node>plain <b>bold</b> text</node>"), status: 200, contains: ["<EchoNodeResult>"], note: "SOAP 1.1 EchoNode with mixed content" },
  { service: X, name: "soap11-getenvelope", binding: "soap11", op: "GetEnvelope", body: w(X, "GetEnvelope"), status: 200, contains: ["<Payload>", "e:flag=\"on\"", "<e:note"], note: "SOAP 1.1 GetEnvelope: XmlElement member, any-element and any-attribute catch-alls" },
  { service: X, name: "soap11-echoenvelope", binding: "soap11", op: "EchoEnvelope", body: w(X, "EchoEnvelope", '<envelope xmlns:z="urn:example:z" z:extra="1"><Kind>k</Kind><Payload><p xmlns="urn:example:p" /></Payload><z:one /><z:two>2</z:two></envelope>'), status: 200, contains: ['z:extra="1"', "<z:one", "<z:two"], note: "SOAP 1.1 EchoEnvelope: unknown elements and attributes land in the catch-alls and come back" },
  { service: X, name: "soap11-echotext-children", binding: "soap11", op: "EchoText", body: w(X, "EchoText", "<text>a<b>x</b>c</text>"), status: 400, note: "SOAP 1.1 EchoText with a string parameter holding text and a child element: 400 with an empty body, no fault" },
  { service: X, name: "soap12-echotext-children", binding: "soap12", op: "EchoText", body: w(X, "EchoText", "<text>a<b>x</b>c</text>"), status: 400, note: "SOAP 1.2 EchoText with text and a child element: the same 400" },
  { service: X, name: "soap11-echotext-only-child", binding: "soap11", op: "EchoText", body: w(X, "EchoText", "<text><b>x</b></text>"), status: 200, contains: ["<EchoTextResult>[x]</EchoTextResult>"], note: "SOAP 1.1 EchoText with a string parameter that is only a child element: its text is read" },
  { service: X, name: "soap11-echotext-cdata", binding: "soap11", op: "EchoText", body: w(X, "EchoText", "<text>a<![CDATA[<b>]]>c</text>"), status: 200, contains: ["<EchoTextResult>[a&lt;b&gt;c]</EchoTextResult>"], note: "SOAP 1.1 EchoText with CDATA: text, not children" },
  { service: X, name: "soap11-echotext-comment", binding: "soap11", op: "EchoText", body: w(X, "EchoText", "<text>a<!-- note -->c</text>"), status: 400, note: "SOAP 1.1 EchoText with a comment between text: the same 400 as a child element" },
  { service: X, name: "get-getelement", binding: "get", op: "GetElement", body: "", status: 200, contains: ['<order xmlns="urn:example:orders" id="7">'], note: "HTTP GET GetElement: the element is the whole answer" },

  // ---- unwrapped arrays ----
  { service: U, name: "soap11-getbasket", binding: "soap11", op: "GetBasket", body: w(U, "GetBasket"), status: 200, contains: ["<Tag>gift</Tag><Tag>express</Tag>", "<Lines><Line>", "<Quantity>2</Quantity><Quantity>1</Quantity>"], note: "SOAP 1.1 GetBasket: unwrapped (repeated, no wrapper) and wrapped-renamed arrays" },
  { service: U, name: "soap11-echobasket", binding: "soap11", op: "EchoBasket", body: w(U, "EchoBasket", "<basket><Owner>o</Owner><Tag>a</Tag><Lines><Line><Sku>S</Sku><Count>1</Count></Line></Lines><Tag>b</Tag><Quantity>5</Quantity></basket>"), status: 200, contains: ["<Tag>a</Tag><Tag>b</Tag>"], note: "SOAP 1.1 EchoBasket: unwrapped items sent out of order (Tag after Lines) are still collected" },
  { service: U, name: "soap11-echobasket-empty", binding: "soap11", op: "EchoBasket", body: w(U, "EchoBasket", "<basket><Owner>o</Owner></basket>"), status: 200, contains: ["<EchoBasketResult><Owner>o</Owner></EchoBasketResult>"], note: "SOAP 1.1 EchoBasket with no items: unwrapped arrays come back null (left out), the wrapped one too" },
  { service: U, name: "soap11-numbers", binding: "soap11", op: "Numbers", body: w(U, "Numbers", "<count>3</count>"), status: 200, contains: ["<NumbersResponse xmlns=\"http://tempuri.org/constructs/arrays/\"><Number>0</Number><Number>1</Number><Number>4</Number></NumbersResponse>"], note: "SOAP 1.1 Numbers: an unwrapped array result is repeated Number elements directly in the response element" },
  { service: U, name: "soap11-numbers-none", binding: "soap11", op: "Numbers", body: w(U, "Numbers", "<count>0</count>"), status: 200, contains: ["<NumbersResponse xmlns=\"http://tempuri.org/constructs/arrays/\" />"], note: "SOAP 1.1 Numbers(0): empty and null cannot be told apart" },
  { service: U, name: "soap11-sum", binding: "soap11", op: "Sum", body: w(U, "Sum", "<Item>1</Item><Item>2</Item><Item>39</Item>"), status: 200, contains: ["<SumResult>42</SumResult>"], note: "SOAP 1.1 Sum: an unwrapped array parameter" },
  { service: U, name: "soap11-matrix", binding: "soap11", op: "Matrix", body: w(U, "Matrix"), status: 200, contains: ["<MatrixResult><ArrayOfInt><int>1</int><int>2</int></ArrayOfInt><ArrayOfInt><int>3</int></ArrayOfInt></MatrixResult>"], note: "SOAP 1.1 Matrix: a jagged array" },
  { service: U, name: "get-sum", binding: "get", op: "Sum", body: "items=1&items=2&items=39", status: 200, contains: [">42</int>"], note: "HTTP GET Sum: an array of primitives is the parameter repeated (named after the C# parameter, not the element)" },
  { service: U, name: "get-numbers", binding: "get", op: "Numbers", body: "count=2", status: 200, contains: ['<ArrayOfInt xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="http://tempuri.org/constructs/arrays/">', "<int>0</int>"], note: "HTTP GET Numbers: over HTTP the array result is wrapped as ArrayOfInt after all" },

  // ---- enums ----
  { service: E, name: "soap11-nextday", binding: "soap11", op: "NextDay", body: w(E, "NextDay", "<day>Sunday</day>"), status: 200, contains: ["<NextDayResult>Monday</NextDayResult>"], note: "SOAP 1.1 NextDay(Sunday)" },
  { service: E, name: "soap11-nextday-unknown", binding: "soap11", op: "NextDay", body: w(E, "NextDay", "<day>Someday</day>"), status: 500, contains: [FAULT11], note: "SOAP 1.1 NextDay with a value not in the enum" },
  { service: E, name: "soap11-nextday-number", binding: "soap11", op: "NextDay", body: w(E, "NextDay", "<day>3</day>"), status: 500, contains: [FAULT11], note: "SOAP 1.1 NextDay with the enum's number instead of its name" },
  { service: E, name: "soap11-grant-flags", binding: "soap11", op: "Grant", body: w(E, "Grant", "<current>Read</current>"), status: 200, contains: ["<GrantResult>Read Write</GrantResult>"], note: "SOAP 1.1 Grant(Read): a [Flags] enum is written as a space-separated list of names" },
  { service: E, name: "soap11-grant-to-all", binding: "soap11", op: "Grant", body: w(E, "Grant", "<current>Read Delete</current>"), status: 200, contains: ["<GrantResult>All</GrantResult>"], note: "SOAP 1.1 Grant(Read Delete): a list is read; a value equal to a named combination (All) is written as that name" },
  { service: E, name: "soap11-grant-empty", binding: "soap11", op: "Grant", body: w(E, "Grant", "<current></current>"), status: 200, contains: ["<GrantResult>Write</GrantResult>"], note: "SOAP 1.1 Grant(empty): the empty list is None (0)" },
  { service: E, name: "soap11-grant-all", binding: "soap11", op: "Grant", body: w(E, "Grant", "<current>All</current>"), status: 200, contains: ["<GrantResult>All</GrantResult>"], note: "SOAP 1.1 Grant(All): a combined name is read" },
  { service: E, name: "soap11-raise-renamed", binding: "soap11", op: "Raise", body: w(E, "Raise", "<level>low-level</level>"), status: 200, contains: ["<RaiseResult>mid</RaiseResult>"], note: "SOAP 1.1 Raise: [XmlEnum] names on the wire" },
  { service: E, name: "soap11-raise-clr-name", binding: "soap11", op: "Raise", body: w(E, "Raise", "<level>Low</level>"), status: 500, contains: [FAULT11], note: "SOAP 1.1 Raise with the C# name of a renamed value" },
  { service: E, name: "soap11-weekend", binding: "soap11", op: "Weekend", body: w(E, "Weekend"), status: 200, contains: ["<WeekendResult><Weekday>Saturday</Weekday><Weekday>Sunday</Weekday></WeekendResult>"], note: "SOAP 1.1 Weekend: an array of enum values" },
  { service: E, name: "get-grant-flags", binding: "get", op: "Grant", body: "current=Read+Delete", status: 500, contains: ["Requested value &#39;Read Delete&#39; was not found."], note: "HTTP GET Grant with the XML form of a [Flags] list (space-separated): refused, HTTP parameters go through Enum.Parse" },
  { service: E, name: "get-grant-comma", binding: "get", op: "Grant", body: "current=Read%2C+Delete", status: 200, contains: [">All</Permissions>"], note: "HTTP GET Grant with Enum.Parse's form (comma-separated); the answer is XML again" },
  { service: E, name: "get-raise-renamed", binding: "get", op: "Raise", body: "level=low-level", status: 500, note: "HTTP GET Raise with the [XmlEnum] name: Enum.Parse knows only C# names" },
  { service: E, name: "get-raise-clr-name", binding: "get", op: "Raise", body: "level=Low", status: 200, contains: [">mid</Level>"], note: "HTTP GET Raise with the C# name: accepted, and the answer uses the [XmlEnum] name" },
  { service: E, name: "get-nextday-unknown", binding: "get", op: "NextDay", body: "day=Someday", status: 500, note: "HTTP GET NextDay with a value not in the enum" },

  // ---- HTTP details: non-ASCII, %uXXXX, INF/NaN ----
  { service: P, name: "get-echo-utf8", binding: "get", op: "Echo", body: "text=h%C3%A9llo%20%E2%82%AC", status: 200, contains: [">héllo € |7| 0068 00E9 006C 006C 006F 0020 20AC</string>"], note: "HTTP GET Echo with UTF-8 percent-escapes" },
  { service: P, name: "get-echo-percent-u", binding: "get", op: "Echo", body: "text=h%u00e9llo%20%u20AC", status: 200, contains: [">h%u00e9llo %u20AC |17|"], note: "HTTP GET Echo with %uXXXX escapes: Mono keeps them as text (.NET Framework's HttpUtility decodes them)" },
  { service: P, name: "post-echo-percent-u", binding: "post", op: "Echo", body: "text=h%u00E9llo", status: 200, contains: [">h\uFFFDllo |5| 0068 FFFD 006C"], note: "HTTP POST Echo with a %uXXXX escape in the form body: Mono makes it U+FFFD" },
  { service: P, name: "get-echo-bad-percent-u", binding: "get", op: "Echo", body: "text=a%u00zzb", status: 200, contains: [">a%u00zzb |"], note: "HTTP GET Echo with a malformed %u escape: kept as text" },
  { service: P, name: "get-echo-plus", binding: "get", op: "Echo", body: "text=a+b%2Bc", status: 200, contains: [">a b+c |5|"], note: "HTTP GET Echo: + is a space, %2B a plus" },
  { service: P, name: "soap11-twice-inf", binding: "soap11", op: "Twice", body: w(P, "Twice", "<x>INF</x>"), status: 200, contains: ["<TwiceResult>INF</TwiceResult>"], note: "SOAP 1.1 Twice(INF): xs:double's INF is read and written" },
  { service: P, name: "soap11-twice-nan", binding: "soap11", op: "Twice", body: w(P, "Twice", "<x>NaN</x>"), status: 200, contains: ["<TwiceResult>NaN</TwiceResult>"], note: "SOAP 1.1 Twice(NaN)" },
  { service: P, name: "soap11-twice-infinity-word", binding: "soap11", op: "Twice", body: w(P, "Twice", "<x>Infinity</x>"), status: 200, contains: ["<TwiceResult>INF</TwiceResult>"], note: "SOAP 1.1 Twice(Infinity): the .NET spelling is accepted too (XmlConvert falls back to Double.Parse)" },
  { service: P, name: "soap11-half-neg-inf", binding: "soap11", op: "Half", body: w(P, "Half", "<x>-INF</x>"), status: 200, contains: ["<HalfResult>-INF</HalfResult>"], note: "SOAP 1.1 Half(-INF), a float" },
  { service: P, name: "soap11-special-nan", binding: "soap11", op: "Special", body: w(P, "Special", "<which>nan</which>"), status: 200, contains: ["<SpecialResult>NaN</SpecialResult>"], note: "SOAP 1.1 Special(nan): a NaN result" },
  { service: P, name: "get-twice-inf", binding: "get", op: "Twice", body: "x=INF", status: 500, note: "HTTP GET Twice(INF): HTTP parameters are parsed with .NET's culture-invariant number parser, not as xs:double" },
  { service: P, name: "get-twice-infinity-word", binding: "get", op: "Twice", body: "x=Infinity", status: 200, contains: [">INF</double>"], note: "HTTP GET Twice(Infinity): the .NET spelling is accepted on HTTP" },
  { service: P, name: "post-twice-nan", binding: "post", op: "Twice", body: "x=NaN", status: 200, contains: [">NaN</double>"], note: "HTTP POST Twice(NaN)" },
  { service: P, name: "get-special-inf", binding: "get", op: "Special", body: "which=-inf", status: 200, contains: [">-INF</double>"], note: "HTTP GET Special(-inf): the answer is XML, so xs:double's -INF" },
  { service: P, name: "get-twice-exponent", binding: "get", op: "Twice", body: "x=1.5e3", status: 200, contains: [">3000</double>"], note: "HTTP GET Twice(1.5e3)" },
  { service: P, name: "get-twice-comma", binding: "get", op: "Twice", body: "x=1%2C5", status: 200, contains: [">30</double>"], note: "HTTP GET Twice(1,5): the comma is read as a thousands separator (15)" },
  { service: P, name: "soap11-increment-exponent", binding: "soap11", op: "Increment", body: w(P, "Increment", "<x>1e3</x>"), status: 500, contains: [FAULT11], note: "SOAP 1.1 Increment(1e3): xs:decimal has no exponent" },
  { service: P, name: "get-increment-exponent", binding: "get", op: "Increment", body: "x=1e3", status: 500, note: "HTTP GET Increment(1e3)" },
  { service: P, name: "get-not-capital", binding: "get", op: "Not", body: "value=True", status: 200, contains: [">false</boolean>"], note: "HTTP GET Not(True): .NET's Boolean.Parse on HTTP" },
  { service: P, name: "soap11-not-capital", binding: "soap11", op: "Not", body: w(P, "Not", "<value>True</value>"), status: 500, contains: [FAULT11], note: "SOAP 1.1 Not(True): xs:boolean is lower case only" },
  { service: P, name: "get-not-one", binding: "get", op: "Not", body: "value=1", status: 500, note: "HTTP GET Not(1): Boolean.Parse refuses 1" },
  { service: P, name: "soap11-not-one", binding: "soap11", op: "Not", body: w(P, "Not", "<value>1</value>"), status: 200, contains: ["<NotResult>false</NotResult>"], note: "SOAP 1.1 Not(1): xs:boolean accepts 1" },

  // ---- [SoapDocumentMethod] / [SoapRpcMethod] variants ----
  { service: M, name: "soap11-getquote-bare", binding: "soap11", op: "GetQuote", body: `<symbol xmlns="${NAMESPACES[M]}">MSFT</symbol>`, status: 200, contains: ["<soap:Body><GetQuoteResult xmlns=\"http://tempuri.org/constructs/document/\"><Symbol>MSFT</Symbol>"], note: "SOAP 1.1 GetQuote, ParameterStyle Bare: the parameter element is the body's child, the result element too" },
  { service: M, name: "soap11-lookup-renamed", binding: "soap11", op: "Lookup", action: "urn:example:actions/lookup", body: `<LookupRequest xmlns="${NAMESPACES[M]}"><key>k</key></LookupRequest>`, status: 200, contains: ["<LookupReply xmlns=\"http://tempuri.org/constructs/document/\"><LookupResult>value-of-k</LookupResult></LookupReply>"], note: "SOAP 1.1 Lookup: custom SOAPAction and renamed request/response elements" },
  { service: M, name: "soap11-lookup-default-action", binding: "soap11", op: "Lookup", body: `<LookupRequest xmlns="${NAMESPACES[M]}"><key>k</key></LookupRequest>`, status: 500, note: "SOAP 1.1 Lookup with the SOAPAction namespace + method name: refused, the custom action is the only one" },
  { service: M, name: "soap11-notify-oneway", binding: "soap11", op: "Notify", body: w(M, "Notify", "<message>m</message>"), status: 200, lacks: ["<soap:Envelope"], note: "SOAP 1.1 Notify, OneWay: no envelope; Mono answers 200 with an empty text/html body (.NET answers 202)" },
  { service: M, name: "soap11-square-other-namespace", binding: "soap11", op: "Square", body: `<Square xmlns="urn:example:other"><n>7</n></Square>`, status: 200, contains: ['<SquareResponse xmlns="urn:example:other"><SquareResult>49</SquareResult>'], note: "SOAP 1.1 Square: request/response elements in another namespace; SOAPAction still the service namespace + name" },
  { service: M, name: "soap11-multiply-rpc", binding: "soap11", op: "Multiply", body: `<q:Multiply xmlns:q="${NAMESPACES[M]}" soap:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><a xsi:type="xsd:int">6</a><b xsi:type="xsd:int">7</b></q:Multiply>`, status: 200, contains: ["<tns:MultiplyResponse>", "<MultiplyResult xsi:type=\"xsd:int\">42</MultiplyResult>"], note: "SOAP 1.1 Multiply, [SoapRpcMethod]: RPC/encoded, xsi:type on every value" },
  { service: M, name: "soap12-multiply-rpc", binding: "soap12", op: "Multiply", body: `<q:Multiply xmlns:q="${NAMESPACES[M]}"><a>6</a><b>7</b></q:Multiply>`, status: 200, contains: ["42</MultiplyResult>"], note: "SOAP 1.2 Multiply, [SoapRpcMethod], values without xsi:type" },
  { service: M, name: "get-square", binding: "get", op: "Square", body: "n=5", status: 200, contains: [">25</int>"], note: "HTTP GET Square: the request namespace does not matter on HTTP" },
];
