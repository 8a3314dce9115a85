"""Loads a WSDL file with zeep, offline, and prints what zeep understood as JSON.

Usage: python3 zeep_wsdl.py WSDL_PATH OPERATION
Prints {"ports": {port: [sorted operation names]},
        "inputs": {port: [parameter names of OPERATION, in order]},
        "soapActions": {port: soapAction of OPERATION}}  (SOAP ports only in soapActions)
"""

import json
import sys

from zeep import Client, Settings
from zeep.transports import Transport


class OfflineTransport(Transport):
    """Refuses every remote load, so a pass proves the WSDL needs nothing from the network."""

    def load(self, url):
        if "://" in url and not url.startswith("file://"):
            raise RuntimeError(f"zeep tried to fetch {url}")
        return super().load(url)


def main():
    wsdl_path, probe = sys.argv[1], sys.argv[2]
    client = Client(wsdl_path, transport=OfflineTransport(), settings=Settings(strict=True))
    ports, inputs, soap_actions = {}, {}, {}
    for service in client.wsdl.services.values():
        for port_name, port in service.ports.items():
            operations = port.binding.all()
            ports[port_name] = sorted(operations)
            operation = operations.get(probe)
            if operation is None:
                continue
            # SOAP: the sequence of the parameters element; HTTP: zeep folds the message parts into one.
            inputs[port_name] = [name for name, _ in operation.input.body.type.elements]
            if getattr(operation, "soapaction", None) is not None:
                soap_actions[port_name] = operation.soapaction
    json.dump({"ports": ports, "inputs": inputs, "soapActions": soap_actions}, sys.stdout)


if __name__ == "__main__":
    main()
