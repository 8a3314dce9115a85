// Every noun of the admin CLI, in the order --help lists them. A new noun (issue 10: template, module,
// filter, trigger, project, credits, sending) is one module exporting a Noun, added here.

import { accountNoun } from "./account.js";
import type { Noun } from "./context.js";
import { creditsNoun } from "./credits.js";
import { filterNoun } from "./filter.js";
import { importNoun } from "./imports.js";
import { listNoun } from "./list.js";
import { moduleNoun } from "./module.js";
import { optoutNoun } from "./optout.js";
import { newsletterNoun } from "./newsletter.js";
import { outboxNoun } from "./outbox.js";
import { projectNoun } from "./project.js";
import { sendingNoun } from "./sending.js";
import { smsNoun } from "./sms.js";
import { subscriberNoun } from "./subscriber.js";
import { templateNoun } from "./template.js";
import { triggerNoun } from "./trigger.js";

export const nouns: readonly Noun[] = [
  accountNoun,
  listNoun,
  optoutNoun,
  importNoun,
  outboxNoun,
  creditsNoun,
  smsNoun,
  projectNoun,
  templateNoun,
  moduleNoun,
  newsletterNoun,
  filterNoun,
  sendingNoun,
  triggerNoun,
  subscriberNoun,
];
