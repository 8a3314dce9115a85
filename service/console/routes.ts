// Every console route: method, path pattern, whether a signed-out browser is sent to the sign-in page
// ("page") or answered 401 ("data": polls, frames, raw sources), and the handler.

import type { ConsoleRoute } from "./context.js";
import { DASHBOARD_ROUTES } from "./pages/dashboard.js";
import { IMPORT_ROUTES } from "./pages/imports.js";
import { LEDGER_ROUTES } from "./pages/ledgers.js";
import { NEWSLETTER_ROUTES } from "./pages/newsletters.js";
import { OUTBOX_ROUTES } from "./pages/outbox.js";
import { SENDING_ROUTES } from "./pages/sendings.js";
import { SUBSCRIBER_ROUTES } from "./pages/subscribers.js";

export const ROUTES: readonly ConsoleRoute[] = [
  ...DASHBOARD_ROUTES,
  ...SUBSCRIBER_ROUTES,
  ...IMPORT_ROUTES,
  ...NEWSLETTER_ROUTES,
  ...SENDING_ROUTES,
  ...OUTBOX_ROUTES,
  ...LEDGER_ROUTES,
];
