// The HTML help pages an ASMX endpoint serves: the operation list, and one page per operation with its
// parameters, sample messages and a test form. Polyglot markup (valid HTML, well-formed XML: self-closed
// void elements, valued attributes) so tests can parse the pages.
//
// The endpoint address is only known per request. A page is rendered once with slot markers where the
// address goes (renderIndexSlots, renderOperationSlots) and the markers are filled per address (fillSlots).
// Every text from the model or the docs is escaped, so it contains no "<" and cannot forge a marker.

import type { ServiceDocTexts } from "../docs.js";
import { escapeMarkup, HTML_REFERENCES, PAGE_TEXT_REFERENCES } from "../markup.js";
import {
  type OperationModel,
  type ParamModel,
  type ResultModel,
  type ServiceModel,
  offeredBindings,
  type BindingName,
} from "../../model.js";
import { wireName } from "../../model.js";
import { isValueType } from "../../codec/values.js";
import { offeredOnHttp } from "../../protocol/http.js";
import { sampleExchanges, type SampleRequest } from "./samples.js";
import { HELP_STYLE } from "./style.js";
import { checkInWords, ruleText, typeLabel, typeModelInWords, valueHint } from "./words.js";

const SLOTS = {
  baseUrl: "<!--@base-url-->",
  host: "<!--@host-->",
  path: "<!--@path-->",
} as const;

/** The page listing the operations. endpointUrl is the endpoint address as clients see it (…/Service.asmx). */
export function renderHelpIndex(model: ServiceModel, docs: ServiceDocTexts, endpointUrl: string): string {
  return fillSlots(renderIndexSlots(model, docs), endpointUrl);
}

/** The page of one operation of the model. */
export function renderHelpOperation(
  model: ServiceModel,
  docs: ServiceDocTexts,
  op: OperationModel,
  endpointUrl: string,
): string {
  return fillSlots(renderOperationSlots(model, docs, op), endpointUrl);
}

/** Spec text in the page. */
function text(value: string): string {
  return escapeMarkup(value, PAGE_TEXT_REFERENCES);
}

/** How each offered binding is called, for the index page (`bindings` of the spec; all four by default). */
const BINDING_LINES: Readonly<Record<BindingName, string>> = {
  soap11: `        <li><strong>SOAP 1.1</strong>: <code>POST</code> to the endpoint, <code>Content-Type: text/xml</code>, operation named by the <code>SOAPAction</code> header.</li>\n`,
  soap12: `        <li><strong>SOAP 1.2</strong>: <code>POST</code> to the endpoint, <code>Content-Type: application/soap+xml</code>.</li>\n`,
  httpGet: `        <li><strong>HTTP GET</strong>: <code>GET</code> the endpoint followed by <code>/</code> and the operation name, parameters in the query string.</li>\n`,
  httpPost: `        <li><strong>HTTP POST</strong>: <code>POST</code> the same address, parameters as <code>application/x-www-form-urlencoded</code>.</li>\n`,
};
/** The HTTP POST line when HTTP GET, whose address it calls "the same", is not offered. */
const HTTP_POST_ALONE = `        <li><strong>HTTP POST</strong>: <code>POST</code> to the endpoint followed by <code>/</code> and the operation name, parameters as <code>application/x-www-form-urlencoded</code>.</li>\n`;
/** The sample exchanges' ids (samples.ts) by binding. */
const SAMPLE_IDS: Readonly<Record<BindingName, string>> = {
  soap11: "soap11",
  soap12: "soap12",
  httpGet: "http-get",
  httpPost: "http-post",
};
const COUNT_WORDS = ["no", "one", "two", "three", "four"];

function callingWays(model: ServiceModel): string {
  const offered = offeredBindings(model);
  const count = COUNT_WORDS[offered.length] ?? String(offered.length);
  const form = offered.includes("httpPost") ? " and a form that calls it" : "";
  const each = offered.length === 1 ? "its sample messages" : `sample messages for all ${count}`;
  return `      <p>Every operation is reachable ${offered.length === 1 ? "one way" : `${count} ways`} at the same endpoint:</p>
      <ul>
${offered.map((b) => (b === "httpPost" && !offered.includes("httpGet") ? HTTP_POST_ALONE : BINDING_LINES[b])).join("")}      </ul>
      <p class="note">Each operation's page shows ${each}${form}. For a formal definition, see the <a href="?WSDL">service description</a>.</p>`;
}

/** The address parts and the sample messages. */
function html(value: string): string {
  return escapeMarkup(value, HTML_REFERENCES);
}

function head(title: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>${title}</title>
<style>
${HELP_STYLE}
</style>
</head>
<body>
`;
}

/** The index page with slot markers where the address goes. */
export function renderIndexSlots(model: ServiceModel, docs: ServiceDocTexts): string {
  const groups = model.groups.map(
    (group) => `  <section>
    <h2>${text(group.title)}</h2>
    <ul class="ops">
${group.operations
  .map(
    (name) => `      <li>
        <a href="?op=${text(name)}">${text(name)}</a>
        <p>${text(docs.operations[name]?.doc ?? "")}</p>
      </li>
`,
  )
  .join("")}    </ul>
  </section>
`,
  );
  return `${head(`${text(model.name)} Web Service`)}<header class="masthead">
  <div class="wrap">
    <p class="kicker">Web service</p>
    <h1>${text(model.name)}</h1>
    <p class="lede">${text(docs.doc)}</p>
    <p class="meta">
      <span>Endpoint <code>${SLOTS.baseUrl}</code></span>
      <span>Namespace <code>${text(model.namespace)}</code></span>
      <a href="?WSDL">Service description (WSDL)</a>
    </p>
  </div>
</header>
<main class="wrap">
${groups.join("")}  <section>
    <h2>Calling the service</h2>
    <div class="card">
${callingWays(model)}
    </div>
  </section>
</main>
</body>
</html>
`;
}

/** One operation's page with slot markers where the address goes. */
export function renderOperationSlots(model: ServiceModel, docs: ServiceDocTexts, op: OperationModel): string {
  const group = model.groups.find((g) => g.name === op.group);
  const opDocs = docs.operations[op.name];
  const paramDoc = (param: ParamModel): string => opDocs?.params[param.name] ?? "";
  // A path, not an absolute URL: the form posts to the origin the page was loaded from, so a forged Host
  // header cannot send the credentials typed into it anywhere else.
  const formAction = `${SLOTS.path}/${html(wireName(op))}`;
  const result = resultView(op.result, opDocs?.result ?? "", docs);
  const parameterRows = op.params
    .map((param) => {
      const required = param.required || (isValueType(param.type) && !param.nullable);
      const use = required ? "required" : "optional";
      const rules = [...typeModelInWords(param.type, param.nullable), ...param.rules.map(ruleText)];
      return `          <tr>
            <td><code>${text(param.name)}</code></td>
            <td><code>${text(typeLabel(param.type))}</code></td>
            <td><span class="badge ${use}">${use}</span>${param.default ? `<span class="default">default <code>${text(param.default)}</code></span>` : ""}</td>
            <td>${rules.length > 0 ? `<ul>${rules.map((rule) => `<li>${text(rule)}</li>`).join("")}</ul>` : ""}</td>
            <td>${text(paramDoc(param))}</td>
          </tr>
`;
    })
    .join("");
  const checks = op.checks.map(checkInWords);
  const checksBlock =
    checks.length === 0
      ? ""
      : `    <h3>Rules across parameters</h3>
    <ul>
${checks.map((check) => `      <li>${text(check)}</li>\n`).join("")}    </ul>
`;
  const membersBlock =
    result.members.length === 0
      ? ""
      : `    <p class="note">${text(result.membersNote)}</p>
    <div class="table-wrap">
      <table>
        <thead>
          <tr><th>${text(result.memberKind)}</th><th>SOAP type</th><th>Description</th></tr>
        </thead>
        <tbody>
${result.members
  .map(
    (member) =>
      `          <tr><td><code>${text(member.name)}</code></td><td><code>${text(member.type)}</code></td><td>${text(member.doc)}</td></tr>\n`,
  )
  .join("")}        </tbody>
      </table>
    </div>
`;
  const fields = op.params
    .map((param) => {
      const placeholder =
        param.default === undefined ? valueHint(param) : `${valueHint(param)} (default ${param.default})`;
      return `      <div class="field">
        <label for="p-${text(param.name)}">${text(param.name)}</label>
        <input id="p-${text(param.name)}" name="${text(param.name)}" type="text" placeholder="${text(placeholder)}" autocomplete="off" spellcheck="false" />
      </div>
`;
    })
    .join("");
  const offered = offeredBindings(model);
  const sampleIds = new Set(offered.map((b) => SAMPLE_IDS[b]));
  // The form calls the HTTP POST binding: only where the service offers it.
  // (An operation with a record parameter is SOAP only.)
  const tryIt = offered.includes("httpPost") && offeredOnHttp(op);
  const samples = sampleExchanges(model, op)
    .filter((sample) => sampleIds.has(sample.id))
    .map(
      (sample) => `    <div class="sample" id="${text(sample.id)}">
      <h3>${text(sample.title)} <small>${text(sample.note)}</small></h3>
      <p class="label">Request</p>
      <pre><code>${requestHtml(sample.request)}</code></pre>
      <p class="label">Response</p>
      <pre><code>${html(sample.response)}</code></pre>
    </div>
`,
    )
    .join("");
  return `${head(`${text(op.name)} · ${text(model.name)} Web Service`)}<header class="masthead">
  <div class="wrap">
    <p class="kicker"><a href="?">${text(model.name)}</a> · ${text(group?.title ?? op.group)}</p>
    <h1>${text(op.name)}</h1>
    <p class="lede">${text(opDocs?.doc ?? "")}</p>
    <p class="meta">
      <a href="?">All operations</a>
      <a href="?WSDL">Service description (WSDL)</a>
${tryIt ? `      <a href="#try">Try it</a>\n` : ""}      <a href="#samples">Sample messages</a>
    </p>
  </div>
</header>
<main class="wrap">
  <section id="parameters">
    <h2>Parameters</h2>
    <div class="table-wrap">
      <table>
        <thead>
          <tr><th>Name</th><th>SOAP type</th><th>Use</th><th>Rules</th><th>Description</th></tr>
        </thead>
        <tbody>
${parameterRows}        </tbody>
      </table>
    </div>
${checksBlock}  </section>
  <section id="result">
    <h2>Result</h2>
    <p><code>${text(result.type)}</code> — ${text(result.doc)}</p>
${membersBlock}  </section>
${
  tryIt
    ? `  <section id="try">
    <h2>Try it</h2>
    <form class="card try" action="${formAction}" method="post" enctype="application/x-www-form-urlencoded">
      <p class="note">Calls the HTTP POST binding. It needs every parameter; an empty field is sent as an empty string.</p>
${fields}      <div class="actions">
        <button type="submit">Invoke</button>
        <span class="note">POST <code>${formAction}</code></span>
      </div>
    </form>
    <div class="answer" id="answer" hidden="hidden">
      <p class="status" id="answer-status"></p>
      <pre id="answer-body"></pre>
    </div>
  </section>
`
    : ""
}  <section id="samples">
    <h2>Sample messages</h2>
    <p class="note">The placeholders shown (<code>string</code>, <code>int</code>, <code>long</code>, <code>dateTime</code>, <code>length</code>) stand for actual values.</p>
${samples}  </section>
</main>
${tryIt ? TRY_IT_SCRIPT : ""}</body>
</html>
`;
}

/** Sends the form to the HTTP POST binding and shows the answer as text (textContent never parses HTML). */
const TRY_IT_SCRIPT = `<script>
  // Sends the form to the HTTP POST binding and shows the answer as text (textContent never parses HTML).
  (function () {
    var form = document.querySelector("form.try");
    var answer = document.getElementById("answer");
    var status = document.getElementById("answer-status");
    var body = document.getElementById("answer-body");
    var button = form.querySelector("button");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      button.disabled = true;
      answer.hidden = false;
      status.className = "status";
      status.textContent = "Calling…";
      body.textContent = "";
      fetch(form.action, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(new FormData(form)).toString()
      })
        .then(function (response) {
          return response.text().then(function (text) {
            status.className = response.ok ? "status" : "status failed";
            status.textContent = "HTTP " + response.status + " " + response.statusText +
              " · " + (response.headers.get("Content-Type") || "no content type");
            body.textContent = text;
          });
        })
        .catch(function (error) {
          status.className = "status failed";
          status.textContent = "The request failed";
          body.textContent = String(error);
        })
        .finally(function () {
          button.disabled = false;
        });
    });
  })();
</script>
`;

function requestHtml(request: SampleRequest): string {
  const first = `${request.method} ${SLOTS.path}${html(request.target)} HTTP/1.1\nHost: ${SLOTS.host}`;
  return request.rest === "" ? first : `${first}\n${html(request.rest)}`;
}

interface ResultView {
  readonly type: string;
  readonly doc: string;
  readonly memberKind: string;
  readonly membersNote: string;
  readonly members: readonly { readonly name: string; readonly type: string; readonly doc: string }[];
}

function resultView(result: ResultModel, resultDoc: string, docs: ServiceDocTexts): ResultView {
  switch (result.kind) {
    case "scalar":
      return { type: result.type, doc: resultDoc, memberKind: "", membersNote: "", members: [] };
    case "enum":
      return {
        type: result.enum.name,
        doc: resultDoc,
        memberKind: "",
        membersNote: `${result.enum.flags ? "Any of (flags, separated by spaces)" : "One of"}: ${result.enum.values.join(", ")}.`,
        members: [],
      };
    case "array":
      return {
        type: result.typeName,
        doc: resultDoc,
        memberKind: "",
        membersNote: `Zero or more ${typeLabel(result.item)} items, each an element ${result.itemElement}.`,
        members: [],
      };
    case "xml":
      return {
        type: typeLabel(result),
        doc: resultDoc,
        memberKind: "",
        membersNote:
          "One XML element, as it is (XmlElement/XmlNode); over HTTP GET/POST it is the whole answer.",
        members: [],
      };
    case "void":
      return {
        type: "void",
        doc: resultDoc,
        memberKind: "",
        membersNote: "An empty response element.",
        members: [],
      };
    case "oneWay":
      return {
        type: "none (one-way)",
        doc: resultDoc,
        memberKind: "",
        membersNote: "No response message: the server answers 202 Accepted with an empty body.",
        members: [],
      };
    case "list":
    case "record": {
      const record = result.record;
      const recordDoc = docs.records[record.name] ?? "";
      return {
        type: result.kind === "list" ? `ArrayOf${record.name}` : record.name,
        doc: resultDoc,
        memberKind: "Field",
        membersNote:
          result.kind === "list"
            ? `Zero or more ${record.name} elements: ${recordDoc} A string field without a value is left out.`
            : `${recordDoc} A string field without a value is left out.`,
        members: record.fields.map((f) => ({ name: f.name, type: typeLabel(f.type), doc: "" })),
      };
    }
    case "dataSet": {
      const dataSet = result.dataSet;
      const dataSetDocs = docs.dataSets[dataSet.name];
      return {
        type: "DataSet",
        doc: resultDoc,
        memberKind: "Column",
        membersNote:
          `An inline XML schema, then a diffgram with one ${dataSet.table} element per row inside ` +
          `${dataSet.dataSetName}. A null cell is left out. ${dataSetDocs?.doc ?? ""}`,
        members: dataSet.columns.map((c) => ({
          name: c.name ?? `(value of ${c.nameFromParam ?? c.property})`,
          type: c.type,
          doc: dataSetDocs?.columns[c.property] ?? "",
        })),
      };
    }
    case "response":
      return {
        type: `${result.record.name}`,
        doc: resultDoc,
        memberKind: "Element",
        membersNote:
          "The response element holds the result and then each out or ref parameter (SOAP only, as ASMX).",
        members: result.record.fields.map((f) => ({ name: f.name, type: typeLabel(f.type), doc: "" })),
      };
    case "untypedDataSet":
      return {
        type: "DataSet",
        doc: resultDoc,
        memberKind: "",
        membersNote:
          "An inline XML schema declaring its tables and columns, then a diffgram with their rows; the answer names them.",
        members: [],
      };
  }
}

/** A page with its address slots filled: baseUrl is the endpoint address as clients see it. */
export function fillSlots(page: string, baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  const url = parseAddress(base);
  // Escaped values contain no "<", so no substitution can create a marker for the next one.
  return page
    .split(SLOTS.baseUrl)
    .join(html(base))
    .split(SLOTS.host)
    .join(html(url.host))
    .split(SLOTS.path)
    .join(html(url.pathname));
}

/** A relative address still yields the path for the sample header lines; one no parser takes, localhost's. */
function parseAddress(address: string): URL {
  try {
    return new URL(address);
  } catch {
    try {
      return new URL(address, "http://localhost");
    } catch {
      return new URL("http://localhost/");
    }
  }
}
