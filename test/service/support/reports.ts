// Delivery reports as remote systems send them back: a delivery status notification (RFC 3464) and a
// feedback-loop report (RFC 5965, ARF), for the bounce and statistics tests.

/** A DSN (RFC 3464) from a remote MTA about `recipient`, returning the original's headers. */
export function dsn(recipient: string, status: string, originalHeaders: string): string {
  const boundary = "dsn-boundary-1";
  const action = status.startsWith("5") ? "failed" : "delayed";
  return [
    "From: Mail Delivery System <mailer-daemon@mx.example>",
    "To: <bounce@bounces.test>",
    "Subject: Delivery Status Notification",
    "MIME-Version: 1.0",
    `Content-Type: multipart/report; report-type=delivery-status; boundary="${boundary}"`,
    "",
    `--${boundary}`,
    "Content-Type: text/plain; charset=us-ascii",
    "",
    `The message to ${recipient} could not be delivered.`,
    "",
    `--${boundary}`,
    "Content-Type: message/delivery-status",
    "",
    "Reporting-MTA: dns; mx.example",
    "Arrival-Date: Sat, 28 Nov 2026 01:00:00 +0000",
    "",
    `Final-Recipient: rfc822; ${recipient}`,
    `Action: ${action}`,
    `Status: ${status}`,
    "Remote-MTA: dns; mx.example",
    `Diagnostic-Code: smtp; ${status.startsWith("5") ? "550 5.1.1 no such user" : "452 4.2.2 mailbox full"}`,
    "",
    `--${boundary}`,
    "Content-Type: text/rfc822-headers",
    "",
    originalHeaders,
    `--${boundary}--`,
    "",
  ].join("\r\n");
}

/** An ARF feedback report (RFC 5965) of type `type` with the original message attached. */
export function arf(type: string, original: string): string {
  const boundary = "arf-boundary-1";
  return [
    "From: Feedback Loop <fbl@isp.example>",
    "To: <abuse@bounces.test>",
    "Subject: FW: complaint",
    "MIME-Version: 1.0",
    `Content-Type: multipart/report; report-type=feedback-report; boundary="${boundary}"`,
    "",
    `--${boundary}`,
    "Content-Type: text/plain; charset=us-ascii",
    "",
    "This is an email abuse report.",
    "",
    `--${boundary}`,
    "Content-Type: message/feedback-report",
    "",
    `Feedback-Type: ${type}`,
    "User-Agent: ISP-FBL/1.0",
    "Version: 1",
    "",
    `--${boundary}`,
    "Content-Type: message/rfc822",
    "",
    original,
    `--${boundary}--`,
    "",
  ].join("\r\n");
}

/** The header block of a raw message (up to and including the line end before the blank line). */
export const headersOf = (raw: string) => raw.slice(0, raw.indexOf("\r\n\r\n") + 2);
