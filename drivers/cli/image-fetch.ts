// The real fetch behind `ironhook bmc check --image`: undici with the CLI's TLS options
// (verification on unless --insecure, --ca-file trusted), redirects followed, a deadline per
// request, and at most the first `maxBytes` of a GET read.
import { Agent, fetch } from 'undici';
import type { ImageFetch } from './image-check.js';

export interface ImageFetchOptions {
  insecure: boolean;
  caBundle?: string;
  timeoutMs: number;
  maxBytes: number;
}

async function firstBytes(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    total += chunk.length;
    // Leaving the loop cancels the stream: a server that ignores Range is not read to the end.
    if (total >= maxBytes) break;
  }
  return Buffer.concat(chunks).subarray(0, maxBytes);
}

export function createImageFetch(options: ImageFetchOptions): { fetch: ImageFetch; close(): Promise<void> } {
  const dispatcher = new Agent({
    connect: { rejectUnauthorized: !options.insecure, ...(options.caBundle === undefined ? {} : { ca: options.caBundle }) },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  return {
    fetch: async (url, request) => {
      const response = await fetch(url, {
        method: request.method,
        headers: request.range === undefined ? {} : { range: request.range },
        redirect: 'follow',
        dispatcher,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      const headers = Object.fromEntries(response.headers);
      if (request.method === 'HEAD' || response.body === null) {
        await response.body?.cancel();
        return { status: response.status, url: response.url, headers };
      }
      return { status: response.status, url: response.url, headers, bytes: await firstBytes(response.body, options.maxBytes) };
    },
    close: () => dispatcher.close(),
  };
}
