// The stylesheet of the help pages (the index and every operation page), put inline into each page.

export const HELP_STYLE = `:root {
  color-scheme: light dark;
  --bg: #f6f7f9;
  --surface: #ffffff;
  --text: #1d2330;
  --muted: #5b6474;
  --line: #dfe3ea;
  --accent: #2457c5;
  --accent-soft: #e8eefb;
  --code-bg: #f1f3f6;
  --ok: #1f7a4d;
  --warn: #9a5b00;
  --radius: 10px;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #14171c;
    --surface: #1c2027;
    --text: #e4e7ec;
    --muted: #9aa3b2;
    --line: #2e343e;
    --accent: #7ea6ff;
    --accent-soft: #22304d;
    --code-bg: #161a20;
    --ok: #5fd39a;
    --warn: #f0b35a;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0;
  background: var(--bg);
  color: var(--text);
  font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
a { color: var(--accent); text-decoration: none; }
a:hover, a:focus-visible { text-decoration: underline; }
code, pre, kbd { font-family: var(--mono); font-size: 0.875em; }
.wrap { max-width: 62rem; margin: 0 auto; padding: 0 1.5rem; }
.masthead { background: var(--surface); border-bottom: 1px solid var(--line); padding: 2rem 0 1.5rem; }
.masthead h1 { margin: 0.2rem 0 0.5rem; font-size: 2rem; line-height: 1.2; letter-spacing: -0.01em; word-break: break-word; }
.kicker { margin: 0; color: var(--muted); font-size: 0.85rem; text-transform: uppercase; letter-spacing: 0.08em; }
.kicker a { color: inherit; }
.lede { margin: 0; max-width: 48rem; font-size: 1.05rem; }
.meta { margin: 1rem 0 0; display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; color: var(--muted); font-size: 0.9rem; }
main.wrap { padding-top: 2rem; padding-bottom: 4rem; }
h2 { font-size: 1.3rem; margin: 2.5rem 0 0.75rem; }
h3 { font-size: 1.05rem; margin: 1.5rem 0 0.5rem; }
section:first-child > h2 { margin-top: 0; }
.card { background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); padding: 1.25rem 1.5rem; }
.ops { list-style: none; margin: 0; padding: 0; display: grid; grid-template-columns: minmax(0, 1fr); gap: 0.75rem; }
.ops li { background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); padding: 0.9rem 1.2rem; }
.ops li:hover { border-color: var(--accent); }
.ops a { font-weight: 600; font-family: var(--mono); font-size: 0.95rem; }
.ops p { margin: 0.25rem 0 0; color: var(--muted); }
.table-wrap { overflow-x: auto; background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); }
table { border-collapse: collapse; width: 100%; font-size: 0.93rem; }
th, td { text-align: left; vertical-align: top; padding: 0.6rem 0.9rem; border-bottom: 1px solid var(--line); }
tr:last-child td { border-bottom: 0; }
th { white-space: nowrap; font-size: 0.78rem; text-transform: uppercase; letter-spacing: 0.06em; color: var(--muted); font-weight: 600; background: var(--code-bg); }
td ul { margin: 0; padding-left: 1.1rem; }
.badge { display: inline-block; padding: 0.05rem 0.5rem; border-radius: 999px; font-size: 0.78rem; font-weight: 600; white-space: nowrap; }
.badge.required { color: var(--warn); background: color-mix(in srgb, var(--warn) 14%, transparent); }
.badge.optional { color: var(--ok); background: color-mix(in srgb, var(--ok) 14%, transparent); }
.default { display: block; margin-top: 0.25rem; color: var(--muted); font-size: 0.85rem; }
.note { color: var(--muted); font-size: 0.92rem; }
.sample { margin-top: 1rem; }
.sample h3 { display: flex; align-items: baseline; gap: 0.75rem; }
.sample h3 small { color: var(--muted); font-weight: 400; font-size: 0.85rem; }
.label { margin: 0.75rem 0 0.35rem; font-size: 0.8rem; text-transform: uppercase; letter-spacing: 0.06em; color: var(--muted); }
pre {
  margin: 0;
  padding: 1rem 1.1rem;
  background: var(--code-bg);
  border: 1px solid var(--line);
  border-radius: var(--radius);
  overflow-x: auto;
  line-height: 1.45;
  tab-size: 2;
}
.try { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0.9rem; }
/* Long operation names and addresses wrap on narrow screens instead of widening the page. */
.ops a, .meta code, .actions code { overflow-wrap: anywhere; }
.try > .note { margin: 0; }
.field { display: grid; grid-template-columns: minmax(10rem, 14rem) 1fr; gap: 0.75rem; align-items: center; }
.field label { font-family: var(--mono); font-size: 0.9rem; word-break: break-all; }
.field input {
  width: 100%;
  padding: 0.5rem 0.7rem;
  font: inherit;
  font-size: 0.95rem;
  color: var(--text);
  background: var(--bg);
  border: 1px solid var(--line);
  border-radius: 8px;
}
.field input:focus { outline: 2px solid var(--accent); outline-offset: 1px; border-color: transparent; }
.actions { display: flex; align-items: center; gap: 1rem; flex-wrap: wrap; }
button {
  font: inherit;
  font-weight: 600;
  padding: 0.55rem 1.3rem;
  border: 0;
  border-radius: 8px;
  color: #fff;
  background: var(--accent);
  cursor: pointer;
}
@media (prefers-color-scheme: dark) { button { color: #10131a; } }
button:hover { filter: brightness(1.08); }
button:disabled { opacity: 0.6; cursor: progress; }
.answer { margin-top: 1.25rem; }
.answer[hidden] { display: none; }
.answer pre { white-space: pre-wrap; overflow-wrap: anywhere; }
.status { margin: 0 0 0.5rem; font-family: var(--mono); font-size: 0.9rem; }
.status.failed { color: var(--warn); }
footer { color: var(--muted); font-size: 0.85rem; padding: 0 0 3rem; }
@media (max-width: 40rem) {
  .field { grid-template-columns: 1fr; gap: 0.3rem; }
  .masthead h1 { font-size: 1.6rem; }
}
`;
