// Type-level checks of generated/server.ts, enforced by `npm run typecheck` (tsc reads test/) and run
// as ordinary assertions by vitest.

import { describe, expectTypeOf, it } from "vitest";
import type { ExternalAPIService } from "../../generated/server.js";
import type { GetTriggerClicksParams } from "../../generated/types.js";

type HandlerParams<Op extends keyof ExternalAPIService> = Parameters<ExternalAPIService[Op]>[0];

describe("generated server types", () => {
  it("a handler receives dateTime parameters as text, while the client may pass a Date", () => {
    expectTypeOf<GetTriggerClicksParams["fromDate"]>().toEqualTypeOf<string | Date>();
    expectTypeOf<HandlerParams<"GetTriggerClicks">["fromDate"]>().toEqualTypeOf<string>();
    expectTypeOf<HandlerParams<"GetTriggerClicks">["triggerId"]>().toEqualTypeOf<number>();
  });

  it("keeps allowed-value unions and optionality", () => {
    expectTypeOf<HandlerParams<"InsertSubscriberSid">["strFormat"]>().toEqualTypeOf<"HTML" | "Text" | undefined>();
    expectTypeOf<HandlerParams<"InsertSubscriberSid">["strEmail"]>().toEqualTypeOf<string>();
  });
});
