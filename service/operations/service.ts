// The reference implementation of the generated ExternalAPIService interface: every call authenticates
// first, works inside one transaction scoped to the caller's account, and answers with the generated
// codecs. Every operation of the spec is implemented (none answers NotImplemented).

import type { CallContext, ExternalAPIService } from "../../generated/server.js";
import type { Account } from "../db/schema.js";
import { mailingOperations } from "./mailing/operations.js";
import { readingOperations } from "./reading/operations.js";
import { noteAccount, type OperationScope, type ServiceDeps } from "./scope.js";
import { subscriberOperations } from "./subscriber/operations.js";
import { transactionalOperations } from "./transactional/operations.js";

export function createService(deps: ServiceDeps): ExternalAPIService {
  const scope: OperationScope = {
    deps,
    store: deps.store,
    now: deps.now ?? Date.now,
    domain: new URL(deps.config.publicUrl).hostname || "localhost",
    async account(context: CallContext): Promise<Account> {
      const found = await deps.auth.verify(
        context.credentials.username,
        context.credentials.password,
        context.remoteAddress,
      );
      noteAccount(context, found);
      return found;
    },
    cachedCheck(context) {
      if (deps.store.engine !== "postgres") return undefined;
      const { username, password } = context.credentials;
      return deps.auth.cached(username, password, context.remoteAddress);
    },
    signedIn(context, account) {
      noteAccount(context, account);
    },
    stale(check) {
      deps.auth.drop(check);
    },
    async afterCredentials(context, checks) {
      try {
        return checks();
      } catch (error) {
        await scope.account(context);
        throw error;
      }
    },
  };
  return {
    ...readingOperations(scope),
    ...subscriberOperations(scope),
    ...mailingOperations(scope),
    ...transactionalOperations(scope),
  };
}
