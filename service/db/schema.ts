// The tables of the service, as Kysely sees them. Times are epoch milliseconds (a bigint column, read
// back as a number on both engines); ids are integers from the engine's own sequence, never reused.

import type { Generated, Insertable, Selectable } from "kysely";

export interface AccountsTable {
  id: Generated<number>;
  username: string;
  /** `scrypt$N$r$p$salt$hash`, salt and hash in base64. */
  password_hash: string;
  /** Bumped on every password change, so cached verifications of the old password stop counting. */
  password_version: Generated<number>;
  /** Demographic fields activated: 25 (default) or 100. */
  dd_fields: Generated<number>;
  /** IANA time zone for send dates and times. */
  time_zone: Generated<string>;
  from_name: Generated<string>;
  from_email: Generated<string>;
  /** Exact decimal text, never negative (issue 10 spends it). */
  sms_credits: Generated<string>;
  sms_price: Generated<string>;
  /**
   * The account's SMS in state `waiting`, kept by every write that makes one waiting or pays one (sms.ts):
   * a send pays at once only when it is 0.
   */
  sms_waiting: Generated<number>;
  created_at: number;
}

export interface MailingListsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  from_name: Generated<string>;
  from_email: Generated<string>;
  description: Generated<string>;
  charset: Generated<string>;
  created_at: number;
}

export interface SubscribersTable {
  id: Generated<number>;
  account_id: number;
  /** As given by the caller. */
  email: string;
  /** Lower-cased e-mail: unique per account. */
  email_key: string;
  name: Generated<string>;
  format: Generated<string>;
  country_code: Generated<string>;
  phone: Generated<string>;
  /** Demographic fields as JSON: `{"3": "SE"}` for DD3 = SE. */
  fields: Generated<string>;
  created_at: number;
}

export type MembershipState = "active" | "pending" | "unsubscribed";

export interface MembershipsTable {
  list_id: number;
  subscriber_id: number;
  account_id: number;
  state: MembershipState;
  /** When the subscriber first joined the list (any state). */
  created_at: number;
  /** When the state last changed. */
  changed_at: number;
}

export interface OptoutsTable {
  account_id: number;
  email_key: string;
  created_at: number;
}

/**
 * requested: a double opt-in was asked for (the confirmation mail queued); confirmed: the person pressed
 * the confirmation button; withdrawn: the person unsubscribed (a list's link, or from all lists).
 */
export type ConsentKind = "requested" | "confirmed" | "withdrawn";

/** One consent given or withdrawn (migration 0017, service/tables/consents.ts). */
export interface ConsentsTable {
  id: Generated<number>;
  account_id: number;
  subscriber_id: number;
  /** The list it is about; null for all the account's lists. */
  list_id: number | null;
  kind: ConsentKind;
  /** How: the operation that asked (InsertSubscriberWithDemDataPendingOption), `confirmation link`, ... */
  source: string;
  /** The address the request came from: the caller's for an operation, the person's for a link. */
  ip: string | null;
  /** The browser's User-Agent (at most 500 characters), where a person's browser made the request. */
  user_agent: string | null;
  /** The text the person was shown (the confirmation mail, the button's page), links left out. */
  text: string;
  created_at: number;
}

export interface ConfirmationsTable {
  /** SHA-256 of the token, hex: the token itself is only in the e-mail. */
  token_hash: string;
  account_id: number;
  list_id: number;
  subscriber_id: number;
  expires_at: number;
  used_at: number | null;
}

/** held: its sending is paused; cancelled: its sending was cancelled before delivery. */
export type MailState = "queued" | "sent" | "dead" | "held" | "cancelled";

export interface MailOutboxTable {
  id: Generated<number>;
  account_id: number;
  /** What made it: confirmation, newsletter, transaction, ... */
  kind: string;
  to_address: string;
  subject: string;
  /**
   * The whole RFC 5322 message, CRLF line ends, while queued or dead; once delivered (and kept
   * OUTBOX_RETENTION_DAYS) only its From, To, Subject, Date and Message-ID headers.
   */
  message: string;
  state: Generated<MailState>;
  attempts: Generated<number>;
  next_attempt_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  last_error: string | null;
  created_at: number;
  sent_at: number | null;
  /** 0: confirmation and transactional mail, delivered first; 1: bulk (newsletters, triggers). */
  priority: Generated<number>;
  /** When delivery was first tried: retries end MAIL_RETRY_MAX_AGE_MS after it. */
  first_attempt_at: number | null;
  /** Delivered, whole text still kept since then (OUTBOX_RETENTION_DAYS); null once cut to its headers. */
  retained_since: number | null;
  /** The message's Message-ID without angle brackets (migration 0011: a returned report names it). */
  message_id: string | null;
}

/**
 * What happened to a message after it left (migration 0011, service/operations/mailing/bounces.ts): a hard or soft
 * bounce or a complaint, at most one of each kind per message.
 */
export interface MailEventsTable {
  id: Generated<number>;
  account_id: number;
  mail_id: number;
  sending_id: number | null;
  subscriber_id: number | null;
  /** The recipient's lower-cased address. */
  email_key: string;
  kind: "hard" | "soft" | "complaint";
  /** Where it was learnt: smtp (the inbound receiver), webhook, send (an SMTP 5xx at delivery). */
  source: string;
  /** RFC 3463 status (5.1.1) or the feedback type (abuse). */
  status: string;
  /** The diagnostic, at most 500 characters. */
  detail: string;
  created_at: number;
}

/**
 * queued → fetching (claimed, downloading) → importing (staging the file's rows in import_batches) →
 * applying (the whole file is staged: its rows go to the subscribers) → done | failed.
 */
export type ImportState = "queued" | "fetching" | "importing" | "applying" | "done" | "failed";

export interface ImportsTable {
  id: Generated<number>;
  account_id: number;
  list_id: number;
  url: string;
  state: Generated<ImportState>;
  /** Lines of the file consumed by committed batches: a restart goes on from here. */
  lines_done: Generated<number>;
  rows_imported: Generated<number>;
  rows_skipped: Generated<number>;
  rows_bad: Generated<number>;
  /** JSON array of the first errors: `[{ "line": 12, "error": "..." }]`. */
  first_errors: Generated<string>;
  error: string | null;
  attempts: Generated<number>;
  lease_owner: string | null;
  lease_until: number | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
  /** When a worker last claimed it: the account whose import was claimed longest ago goes first. */
  claimed_at: number | null;
  /** The staged file's validators (ETag, Last-Modified, Content-Length) as its first response gave them. */
  file_etag: string | null;
  file_last_modified: string | null;
  file_length: number | null;
}

/**
 * The good rows of an import's file, one staged batch of lines per row, kept until the whole file is read
 * (one version of it), then applied to the subscribers in order, each batch deleted as it is applied.
 */
export interface ImportBatchesTable {
  import_id: number;
  /** The batch's first and last line of the file (1-based). */
  first_line: number;
  last_line: number;
  /** JSON array of the batch's good rows, in file order: `[[email, name, format, {"1":"SE"}], ...]`. */
  rows: string;
}

/** waiting: not paid yet (too few credits), sent oldest first after a refill; queued: paid, to deliver. */
/** waiting (for credits) -> queued (paid) -> sent | dead; stopped: to a number that sent STOP, never sent. */
export type SmsState = "waiting" | "queued" | "sent" | "dead" | "stopped";

export interface SmsMessagesTable {
  id: Generated<number>;
  account_id: number;
  sender_name: string;
  country_code: string;
  phone_number: string;
  message: string;
  encoding: "GSM-7" | "UCS-2";
  segments: number;
  cost: string;
  state: SmsState;
  attempts: Generated<number>;
  next_attempt_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  last_error: string | null;
  created_at: number;
  paid_at: number | null;
  sent_at: number | null;
  /** The gateway's last delivery receipt: its status (sms-events.ts RECEIPT_STATUSES), detail and time. */
  receipt_status: string | null;
  receipt_detail: string | null;
  receipt_at: number | null;
}

export interface SmsStopsTable {
  /** E.164 digits without "+". */
  number: string;
  keyword: string;
  created_at: number;
}

export interface CreditLedgerTable {
  id: Generated<number>;
  account_id: number;
  amount: string;
  balance: string;
  reason: string;
  sms_id: number | null;
  created_at: number;
}

export interface ProjectsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  subject: string;
  text_body: string;
  html_body: Generated<string>;
  from_name: Generated<string>;
  from_email: Generated<string>;
  created_at: number;
}

export interface TransactionsTable {
  id: Generated<number>;
  account_id: number;
  project_id: number;
  identifier: string | null;
  email: string;
  send_at: number;
  mail_id: number | null;
  created_at: number;
}

export interface TemplatesTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  subject: Generated<string>;
  html: string;
  text: Generated<string>;
  created_at: number;
}

export interface ModulesTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  code: string;
  created_at: number;
}

export type FilterOperator = "=" | "!=" | "contains" | "startsWith" | "empty" | "notEmpty";

export interface FiltersTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  field: string;
  operator: FilterOperator;
  value: Generated<string>;
  created_at: number;
}

export type Tracking = "all" | "no" | "roi";

export interface NewslettersTable {
  id: Generated<number>;
  account_id: number;
  template_id: number;
  name: string;
  subject: string;
  tracking: Tracking;
  created_at: number;
}

export interface NewsletterModulesTable {
  id: Generated<number>;
  account_id: number;
  newsletter_id: number;
  module_id: number;
  code: string;
  module_index: Generated<number>;
  holder_id: Generated<number>;
  filter_id: number | null;
  created_at: number;
}

export type SendingState = "scheduled" | "expanding" | "sending" | "done" | "paused" | "cancelled";

export interface SendingsTable {
  id: Generated<number>;
  account_id: number;
  newsletter_id: number;
  list_id: number;
  filter_id: number | null;
  from_email: string;
  from_name: Generated<string>;
  send_at: number;
  state: Generated<SendingState>;
  recipients: Generated<number>;
  sent: Generated<number>;
  lease_owner: string | null;
  lease_until: number | null;
  created_at: number;
  finished_at: number | null;
  /** Set on the sending a trigger uses for its mailings. */
  trigger_id: Generated<number | null>;
}

export interface SendingRecipientsTable {
  sending_id: number;
  subscriber_id: number;
  account_id: number;
  state: Generated<"queued" | "sent" | "skipped" | "cancelled">;
  mail_id: number | null;
  created_at: number;
}

export interface TrackedLinksTable {
  id: Generated<number>;
  account_id: number;
  sending_id: number;
  url: string;
}

export interface TrackingEventsTable {
  id: Generated<number>;
  account_id: number;
  sending_id: number;
  subscriber_id: number;
  /** unsubscribe: the recipient used this sending's unsubscribe link (once per recipient). */
  kind: "view" | "click" | "conversion" | "unsubscribe";
  link_id: number | null;
  value: string | null;
  created_at: number;
}

/**
 * What one tracking token has recorded (migration 0010): the bound on views, clicks and conversions per
 * recipient (and link), shared by every instance. `link_id` is 0 for views.
 */
export interface TrackingLimitsTable {
  sending_id: number;
  subscriber_id: number;
  link_id: number;
  kind: "view" | "click" | "conversion";
  /** When the current window began (ms). */
  window_start: number;
  /** Events recorded in the current window. */
  window_count: number;
  /** Events recorded in all. */
  total: number;
}

export interface TriggersTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  list_id: number;
  newsletter_id: number;
  from_email: string;
  from_name: Generated<string>;
  created_at: number;
}

export interface TriggerFiredTable {
  trigger_id: number;
  subscriber_id: number;
  fired_at: number;
}

export interface SecretsTable {
  name: string;
  value: string;
}

/** Sign-in throttling (service/auth/throttle.ts): one row per name, source or (name, source) key. */
export interface AuthThrottleTable {
  /** A kind letter (n, s, p) and a keyed hash: never a user name or an address. */
  key: string;
  /** Recent failures, one forgotten per hour without failures. */
  failures: number;
  last_failure_at: number;
  /** Attempts this key applies to are refused until then. */
  blocked_until: number;
  /** A pair key: its source signed in as its name, so the name's and the source's delays do not apply. */
  trusted_until: number;
  /** Deleted after this (pruned by later writes). */
  expires_at: number;
}

/** A console sign-in (service/console/sessions.ts, migration 0012). */
export interface ConsoleSessionsTable {
  /** SHA-256 of the cookie's token, base64url: the token itself is only in the browser. */
  token_hash: string;
  account_id: number;
  /** The account's password_version at sign-in: a password change ends the session. */
  password_version: number;
  created_at: number;
  expires_at: number;
}

/** What became of a sending, counted as its events are written (service/tables/sending-counters.ts). */
export interface SendingCountersTable {
  sending_id: number;
  sent: number;
  skipped: number;
  cancelled: number;
  pending: number;
  accepted: number;
  failed: number;
  withdrawn: number;
  hard: number;
  soft: number;
  complaints: number;
  accepted_bounced: number;
  opens: number;
  opens_total: number;
  clickers: number;
  clicks_total: number;
  unsubscribes: number;
}

/** A sending's clicks of one tracked link: recipients who clicked it, and every click. */
export interface SendingLinkCountersTable {
  sending_id: number;
  link_id: number;
  clickers: number;
  clicks: number;
}

/** A sending's opens and clicks in one bucket of `width` ms starting at `bucket` (ms). */
export interface SendingEventBucketsTable {
  sending_id: number;
  width: number;
  bucket: number;
  opens: number;
  clicks: number;
}

export interface Database {
  accounts: AccountsTable;
  mailing_lists: MailingListsTable;
  subscribers: SubscribersTable;
  memberships: MembershipsTable;
  optouts: OptoutsTable;
  confirmations: ConfirmationsTable;
  consents: ConsentsTable;
  mail_outbox: MailOutboxTable;
  imports: ImportsTable;
  import_batches: ImportBatchesTable;
  secrets: SecretsTable;
  sms_messages: SmsMessagesTable;
  sms_stops: SmsStopsTable;
  credit_ledger: CreditLedgerTable;
  projects: ProjectsTable;
  transactions: TransactionsTable;
  templates: TemplatesTable;
  modules: ModulesTable;
  filters: FiltersTable;
  newsletters: NewslettersTable;
  newsletter_modules: NewsletterModulesTable;
  sendings: SendingsTable;
  sending_recipients: SendingRecipientsTable;
  tracked_links: TrackedLinksTable;
  tracking_events: TrackingEventsTable;
  tracking_limits: TrackingLimitsTable;
  triggers: TriggersTable;
  trigger_fired: TriggerFiredTable;
  auth_throttle: AuthThrottleTable;
  mail_events: MailEventsTable;
  console_sessions: ConsoleSessionsTable;
  sending_counters: SendingCountersTable;
  sending_link_counters: SendingLinkCountersTable;
  sending_event_buckets: SendingEventBucketsTable;
}

export type Account = Selectable<AccountsTable>;
export type MailingList = Selectable<MailingListsTable>;
export type Subscriber = Selectable<SubscribersTable>;
export type NewSubscriber = Insertable<SubscribersTable>;
export type Import = Selectable<ImportsTable>;
export type Mail = Selectable<MailOutboxTable>;
export type SmsMessage = Selectable<SmsMessagesTable>;
export type Project = Selectable<ProjectsTable>;
