// The conformance matrix: every case of test/conformance/cases/*.yaml, expanded across its bindings,
// in both roles. Server role: the generated server answers reference requests. Client role: the
// generated client talks to the reference peer. One test per expanded case, named Op/binding/name.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadReferenceService, REF_BINDINGS } from "./reference/spec.js";
import { expandCases, loadCases, type Role } from "./suite/cases.js";
import { startClientRole, type ClientRole } from "./suite/client-role.js";
import { knownFailingEntry, loadKnownFailing, runExpectingListed } from "./suite/known-failing.js";
import { startServerRole, type ServerRole } from "./suite/server-role.js";
import { SPEC_OPERATIONS } from "../fixtures/spec-facts.js";

const service = loadReferenceService();
const cases = loadCases(service);
const runs = expandCases(cases);
const knownFailing = loadKnownFailing();

function runsOf(role: Role) {
  return runs.filter((r) => r.role === role);
}

describe("server role: generated server ← reference requests", () => {
  let peer: ServerRole;
  beforeAll(async () => {
    peer = await startServerRole(service);
  });
  afterAll(() => peer.close());
  for (const run of runsOf("server")) {
    it(run.path, () => runExpectingListed(knownFailingEntry(knownFailing, run), () => peer.run(run)));
  }
});

describe("client role: generated client → reference peer", () => {
  let peer: ClientRole;
  beforeAll(async () => {
    peer = await startClientRole(service);
  });
  afterAll(() => peer.close());
  for (const run of runsOf("client")) {
    it(run.path, () => runExpectingListed(knownFailingEntry(knownFailing, run), () => peer.run(run)));
  }
});

describe("the matrix", () => {
  it("has a success case on every binding in both roles for every operation", () => {
    for (const op of service.operations.keys()) {
      for (const role of ["server", "client"] as const) {
        const covered = new Set(
          runs
            .filter((r) => r.case.operation === op && r.role === role && r.case.result)
            .map((r) => r.binding),
        );
        expect([op, role, [...covered].sort()]).toEqual([op, role, [...REF_BINDINGS].sort()]);
      }
    }
    expect([...service.operations.keys()].sort()).toEqual([...SPEC_OPERATIONS].sort());
    expect(runs.length).toBeGreaterThanOrEqual(SPEC_OPERATIONS.length * 4 * 2);
  });

  it("lists in known-failing.yaml only cases that exist", () => {
    const paths = new Set(runs.map((r) => r.path));
    expect(knownFailing.filter((e) => !paths.has(e.case)).map((e) => e.case)).toEqual([]);
  });
});
