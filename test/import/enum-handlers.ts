// The Enums fixture's methods (test/asmx-host/constructs/App_Code/Enums.cs) as handlers of a server generated
// from its import, for flags.test.ts and constructs-roundtrip.test.ts.

/** Permissions as .NET holds it (a number) and writes it (a named combination when one matches). */
const BITS: Record<string, number> = { None: 0, Read: 1, Write: 2, Delete: 4, All: 7 };
const permissions = {
  bits: (names: readonly string[]) => names.reduce((n, name) => n | BITS[name]!, 0),
  names(n: number): string[] {
    const exact = Object.keys(BITS).find((k) => BITS[k] === n);
    if (exact !== undefined) return [exact];
    return ["Read", "Write", "Delete"].filter((k) => (n & BITS[k]!) !== 0);
  },
};
const WEEK = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

/** The fixture's methods (constructs/App_Code/Enums.cs) as handlers of our generated server. */
export const enumHandlers = {
  NextDay: ({ day }: { day: string }) => WEEK[(WEEK.indexOf(day) + 1) % 7],
  Grant: ({ current }: { current: readonly string[] }) =>
    permissions.names(permissions.bits(current) | BITS.Write!),
  Raise: ({ level }: { level: string }) => (level === "low-level" ? "mid" : "High"),
  Weekend: () => ["Saturday", "Sunday"],
};
