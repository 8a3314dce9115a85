"""Calls a running ExternalAPIService with zeep, loading the WSDL the service itself serves, and prints what
zeep decoded as JSON. Only 127.0.0.1 is ever contacted.

Usage: python3 zeep_calls.py < job.json
job.json: {"endpoint": "http://127.0.0.1:PORT/ExternalAPIService.asmx",
           "ports": ["ExternalAPIServiceSoap", ...],                 every operation is called on each
           "calls": {"Operation": {"param": value, ...}, ...},       credentials included
           "probes": [{"port": ..., "operation": ..., "params": {...}}, ...]}   called as given, unfilled
A parameter value {"$datetime": "2024-01-02T03:04:05"} is passed to zeep as a Python datetime.
Prints {"zeep": version,
        "results": {port: {operation: {"value": ...} | {"error": "Type: message"}}},
        "probes": [{"value": ...} | {"error": ...}, ...]}

Values are tagged where JSON (or JavaScript's JSON.parse) would blur them:
  int -> {"$int": "digits"}                 JavaScript numbers lose integers above 2^53
  float -> {"$float": repr}                 JSON has no inf/nan
  Decimal -> {"$decimal": str}
  datetime/date/time -> {"$datetime": isoformat()}
  bytes -> {"$bytes": latin-1 text}
  lxml element (xs:any content zeep found no schema for) -> {"$xml": serialized element}
  zeep Schema (an inline xs:schema zeep parsed) -> {"$schema": {element name: zeep's type signature}}
"""

import datetime
import decimal
import json
import sys
from urllib.parse import urlsplit

import zeep
from lxml import etree
from zeep import Client, Settings, xsd
from zeep.helpers import serialize_object
from zeep.transports import Transport
from zeep.xsd.schema import Schema

SERVICE = "ExternalAPIService"
HTTP_PORTS = ("ExternalAPIServiceHttpGet", "ExternalAPIServiceHttpPost")


class LoopbackTransport(Transport):
    """Refuses any URL not on 127.0.0.1 (WSDL loads and calls alike) and ignores proxy settings."""

    def __init__(self):
        super().__init__(timeout=30, operation_timeout=30)
        self.session.trust_env = False

    @staticmethod
    def check(url):
        if urlsplit(url).hostname != "127.0.0.1":
            raise RuntimeError(f"refusing non-loopback URL {url}")

    def load(self, url):
        self.check(url)
        return super().load(url)

    def get(self, address, params, headers):
        self.check(address)
        return super().get(address, params, headers)

    def post(self, address, message, headers):
        self.check(address)
        return super().post(address, message, headers)


def plain(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return {"$int": str(value)}
    if isinstance(value, float):
        return {"$float": repr(value)}
    if isinstance(value, decimal.Decimal):
        return {"$decimal": str(value)}
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return {"$datetime": value.isoformat()}
    if isinstance(value, bytes):
        return {"$bytes": value.decode("latin-1")}
    if isinstance(value, etree._Element):
        return {"$xml": etree.tostring(value, encoding="unicode")}
    if isinstance(value, Schema):
        elements = [e for e in value.elements if isinstance(e, xsd.Element)]
        return {"$schema": {e.name: e.type.signature(schema=value) for e in elements}}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if value is None or isinstance(value, str):
        return value
    return {"$repr": repr(value)}


def from_tags(value):
    if isinstance(value, dict) and set(value) == {"$datetime"}:
        return datetime.datetime.fromisoformat(value["$datetime"])
    return value


def call(client, port, operation, params, fill):
    service = client.bind(SERVICE, port)
    args = {name: from_tags(value) for name, value in params.items()}
    if fill and port in HTTP_PORTS:
        # ASMX's HTTP bindings need every parameter, an empty value meaning the empty string. zeep leaves a
        # part that was not given out of a GET query and writes the text "None" into a POST form (the test's
        # probes show both), so, like any caller of these bindings, pass "" for each part not given.
        parts = client.wsdl.services[SERVICE].ports[port].binding.get(operation).input.abstract.parts
        for name in parts:
            args.setdefault(name, "")
    try:
        return {"value": plain(serialize_object(getattr(service, operation)(**args)))}
    except Exception as error:  # reported per call; the test decides what is expected
        return {"error": f"{type(error).__name__}: {error}"}


def main():
    job = json.load(sys.stdin)
    LoopbackTransport.check(job["endpoint"])
    client = Client(job["endpoint"] + "?WSDL", transport=LoopbackTransport(), settings=Settings(strict=True))
    results = {
        port: {op: call(client, port, op, params, True) for op, params in job["calls"].items()} for port in job["ports"]
    }
    probes = [call(client, p["port"], p["operation"], p["params"], False) for p in job.get("probes", [])]
    json.dump({"zeep": zeep.__version__, "results": results, "probes": probes}, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
