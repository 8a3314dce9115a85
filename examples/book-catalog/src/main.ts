// Serves the example BookCatalog service: `npm run example:books` (PORT, default 8081; BOOKS_API_KEY, default a
// fresh key printed at start).

import { randomUUID } from "node:crypto";
import { createServer } from "../generated/server.js";
import { createCatalog } from "./catalog.js";

const port = Number(process.env.PORT ?? 8081);
const apiKey = process.env.BOOKS_API_KEY ?? randomUUID();
const server = createServer(createCatalog({ apiKeys: [apiKey] }));
server.listen(port, "127.0.0.1", () => {
  process.stdout.write(`BookCatalog at http://127.0.0.1:${port}/BookCatalog.asmx (API key ${apiKey})\n`);
});
process.once("SIGINT", () => server.close());
process.once("SIGTERM", () => server.close());
