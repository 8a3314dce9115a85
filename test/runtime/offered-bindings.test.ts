// Per-service bindings (spec `service.bindings`): the server answers, the WSDL and the help pages list, and the
// client offers only the bindings the spec names; all four by default. And the SOAP action of both namespace
// shapes (.NET: a "/" between namespace and operation unless the namespace ends in one).

import { describe, expect, it } from "vitest";
import { emitClient } from "../../generator/emit/client.js";
import {
  createAnyBindingClientCore,
  createClientCore,
  type ClientWithOptions,
} from "../../runtime/client/core.js";
import { clientBindings } from "../../runtime/client/bindings.js";
import { serverBindings } from "../../runtime/server/bindings.js";
import { createDocuments } from "../../runtime/server/documents.js";
import { type ServiceModel, offeredBindings, type BindingName } from "../../runtime/model.js";
import { soapActionOf } from "../../runtime/protocol/soap.js";
import { standard } from "../../runtime/client/platform/standard.js";
import { createFetchHandler } from "../../runtime/server/fetch.js";
import { createServiceCore } from "../../runtime/server/core.js";
import { renderWsdl } from "../../runtime/server/wsdl.js";
import { readXml } from "../../runtime/xml/scan.js";
import { normalizedOf, smallSpecWith } from "../generator/fixtures/index.js";
import { registerAllClientCodecs } from "../../runtime/codec/values.js";

// The client's codecs of every scalar type (a generated model registers those its service uses).
registerAllClientCodecs();

const ENDPOINT = "http://127.0.0.1/Shop.asmx";

function shop(bindings: string | undefined, namespace = "urn:shop") {
  const text = smallSpecWith(
    ["namespace: urn:shop", `namespace: ${namespace}`],
    [
      "  doc: A small shop.",
      `  doc: A small shop.${bindings === undefined ? "" : `\n  bindings: ${bindings}`}`,
    ],
  );
  const { model, docs } = normalizedOf(text);
  const implementation = {
    AddItem: () => 41n,
    ListItems: () => [{ Id: 1n, Label: "one" }],
    GetStock: () => [],
  };
  const core = createServiceCore(
    model,
    implementation,
    createDocuments(model, docs),
    serverBindings,
    readXml,
  );
  const handler = createFetchHandler(core);
  const client = (binding: BindingName) =>
    createClientCore(
      model,
      {
        baseUrl: ENDPOINT,
        user: "u",
        platform: standard,
        fetch: (url, init) => handler(new Request(url, init)),
      } as ClientWithOptions,
      clientBindings[binding],
    );
  return { model, docs, handler, client };
}

const ADD = { label: "x", quantity: 1 };

describe("service.bindings", () => {
  it("defaults to all four and leaves the model as it was", () => {
    const { model } = shop(undefined);
    expect(model.bindings).toBeUndefined();
    expect(offeredBindings(model)).toEqual(["soap11", "soap12", "httpGet", "httpPost"]);
    expect(shop("[httpPost, soap11, soap12, httpGet]").model.bindings).toBeUndefined();
  });

  it("keeps the named bindings in the usual order", () => {
    expect(shop("[httpPost, soap12]").model.bindings).toEqual(["soap12", "httpPost"]);
  });

  it("lists only the offered bindings, ports and messages in the WSDL", () => {
    const { model, docs } = shop("[soap12, httpPost]");
    const wsdl = renderWsdl(model, docs, ENDPOINT);
    expect(wsdl.match(/<wsdl:binding name="[^"]+"/g)).toEqual([
      '<wsdl:binding name="ShopSoap12"',
      '<wsdl:binding name="ShopHttpPost"',
    ]);
    expect(wsdl.match(/<wsdl:port name="[^"]+"/g)).toEqual([
      '<wsdl:port name="ShopSoap12"',
      '<wsdl:port name="ShopHttpPost"',
    ]);
    // SOAP 1.2 alone: its messages and portType are named Soap12, as ASMX names them (the SEFAZ WSDLs).
    expect(wsdl.match(/<wsdl:portType name="[^"]+"/g)).toEqual([
      '<wsdl:portType name="ShopSoap12"',
      '<wsdl:portType name="ShopHttpPost"',
    ]);
    expect(wsdl).not.toContain("HttpGetIn");
    expect(wsdl).toContain('<wsdl:message name="AddItemSoap12In">');
    expect(wsdl).toContain('<wsdl:binding name="ShopSoap12" type="tns:ShopSoap12">');
    expect(renderWsdl(shop("[soap11, soap12]").model, docs, ENDPOINT)).toContain(
      '<wsdl:binding name="ShopSoap12" type="tns:ShopSoap">',
    );
    expect(wsdl).toContain('soap12:operation soapAction="urn:shop/AddItem"');
    const httpOnly = renderWsdl(shop("[httpGet]").model, docs, ENDPOINT);
    expect(httpOnly).not.toContain("SoapIn");
    expect(httpOnly).not.toContain("ShopSoap");
    expect(httpOnly.match(/<wsdl:port name="[^"]+"/g)).toEqual(['<wsdl:port name="ShopHttpGet"']);
  });

  it("answers only on the offered bindings; the others get ASMX's 'Request format is unrecognized'", async () => {
    const { handler } = shop("[soap12, httpPost]");
    const soap11 = await handler(
      new Request(ENDPOINT, {
        method: "POST",
        headers: { "content-type": "text/xml; charset=utf-8", soapaction: '"urn:shop/ListItems"' },
        body: '<?xml version="1.0"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><ListItems xmlns="urn:shop"><user>u</user></ListItems></soap:Body></soap:Envelope>',
      }),
    );
    expect(soap11.status).toBe(500);
    expect(await soap11.text()).toBe("System.InvalidOperationException: Request format is unrecognized.");
    const get = await handler(new Request(`${ENDPOINT}/ListItems?user=u`));
    expect(get.status).toBe(500);
    expect(await get.text()).toBe(
      "System.InvalidOperationException: Request format is unrecognized for URL unexpectedly ending in '/ListItems'.",
    );
    const post = await handler(
      new Request(`${ENDPOINT}/ListItems`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "user=u",
      }),
    );
    expect(post.status).toBe(200);
  });

  it("lets a client call an offered binding and refuses to make one for another", async () => {
    const { model, client } = shop("[soap12, httpPost]");
    const add = model.operations.find((op) => op.name === "AddItem")!;
    expect(await client("soap12").call(add, ADD)).toBe(41n);
    expect(await client("httpPost").call(add, ADD)).toBe(41n);
    expect(() => client("soap11")).toThrow(
      "binding must be one the service offers (soap12, httpPost); got soap11.",
    );
    expect(() => client("httpGet")).toThrow(TypeError);
  });

  it("shows only the offered ways on the help pages, and the form only with HTTP POST", async () => {
    const { handler } = shop("[soap12, httpPost]");
    const index = await (await handler(new Request(ENDPOINT))).text();
    expect(index).toContain("Every operation is reachable two ways at the same endpoint:");
    expect(index).toContain("<strong>SOAP 1.2</strong>");
    expect(index).not.toContain("<strong>SOAP 1.1</strong>");
    expect(index).toContain(
      "<code>POST</code> to the endpoint followed by <code>/</code> and the operation name",
    );
    const page = await (await handler(new Request(`${ENDPOINT}?op=AddItem`))).text();
    expect(page).toContain('id="soap12"');
    expect(page).toContain('id="http-post"');
    expect(page).not.toContain('id="soap11"');
    expect(page).not.toContain('id="http-get"');
    expect(page).toContain('<form class="card try"');
    const soapOnly = await (await shop("[soap11]").handler(new Request(`${ENDPOINT}?op=AddItem`))).text();
    expect(soapOnly).not.toContain("<form");
    expect(soapOnly).not.toContain('href="#try"');
    expect(soapOnly).not.toContain("<script>");
    const oneWay = await (await shop("[soap11]").handler(new Request(ENDPOINT))).text();
    expect(oneWay).toContain("Every operation is reachable one way at the same endpoint:");
  });

  it("makes the generated client export and accept only the offered bindings", () => {
    const { model, docs } = shop("[soap12, httpPost]");
    const client = emitClient(model as ServiceModel, { docs })[0]!.content;
    expect(client).toMatch(/export const soap12: ClientBindingFactory/);
    expect(client).toMatch(/export const httpPost: ClientBindingFactory/);
    expect(client).not.toMatch(/export const soap11\b/);
    expect(client).not.toMatch(/export const httpGet\b/);
    expect(client).toMatch(/ClientConfigOf<ShopCredentials, "soap12" \| "httpPost">/);
    // The core that refuses a binding the service does not offer (a factory is any function).
    expect(client).toMatch(/const core = createClientCore\(/);
  });

  it("gives a client of a spec offering all four bindings the core without the offered check", () => {
    for (const bindings of [undefined, "[soap11, soap12, httpGet, httpPost]"]) {
      const { model, docs } = shop(bindings);
      const client = emitClient(model as ServiceModel, { docs })[0]!.content;
      expect(client).toMatch(/const core = createAnyBindingClientCore\(/);
      expect(client).not.toMatch(/\bcreateClientCore\b/);
    }
  });

  it("createAnyBindingClientCore makes a core over any binding; createClientCore refuses one not offered", () => {
    const { model } = shop("[soap12]");
    const options = { baseUrl: ENDPOINT, user: "u", platform: standard } as ClientWithOptions;
    expect(createAnyBindingClientCore(model, options, clientBindings.soap11).binding.name).toBe("soap11");
    expect(() => createClientCore(model, options, clientBindings.soap11)).toThrow(
      "binding must be one the service offers (soap12); got soap11.",
    );
  });
});

describe("SOAP action", () => {
  it("is namespace + operation when the namespace ends in /, else namespace/operation (as .NET)", () => {
    expect(soapActionOf("http://tempuri.org/", "Ping")).toBe("http://tempuri.org/Ping");
    expect(soapActionOf("urn:example:edge:v2", "Ping")).toBe("urn:example:edge:v2/Ping");
    expect(soapActionOf("http://example.com/svc", "Ping")).toBe("http://example.com/svc/Ping");
  });

  it.each([
    ["http://example.com/shop/", "http://example.com/shop/AddItem"],
    ["urn:example:edge:v2", "urn:example:edge:v2/AddItem"],
  ])("is what the WSDL, the client and the server agree on for %s", async (namespace, action) => {
    const { model, docs, client, handler } = shop(undefined, namespace);
    expect(renderWsdl(model, docs, ENDPOINT)).toContain(`soap:operation soapAction="${action}"`);
    const add = model.operations.find((op) => op.name === "AddItem")!;
    expect(await client("soap11").call(add, ADD)).toBe(41n);
    expect(await client("soap12").call(add, ADD)).toBe(41n);
    const body = (ns: string) =>
      `<?xml version="1.0"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><ListItems xmlns="${ns}"><user>u</user></ListItems></soap:Body></soap:Envelope>`;
    const post = (soapAction: string) =>
      handler(
        new Request(ENDPOINT, {
          method: "POST",
          headers: { "content-type": "text/xml; charset=utf-8", soapaction: `"${soapAction}"` },
          body: body(namespace),
        }),
      );
    expect((await post(soapActionOf(namespace, "ListItems"))).status).toBe(200);
    const wrong = namespace.endsWith("/") ? `${namespace}/ListItems` : `${namespace}ListItems`;
    const refused = await post(wrong);
    expect(refused.status).toBe(500);
    expect(await refused.text()).toContain(
      `Server did not recognize the value of HTTP Header SOAPAction: ${wrong}.`,
    );
  });
});
