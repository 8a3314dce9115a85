// Byte helpers for web-standard streams: the fetch adapter joins a request body's chunks with them.

/** The chunks of a body as one array; the chunk itself when there is only one. */
export function joinChunks(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
