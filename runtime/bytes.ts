// Byte helpers both sides use on web-standard streams (the client's answers, the fetch adapter's requests).

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
