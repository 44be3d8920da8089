// Collects an HTTP response as status and text, for tests that drive node:http(s) requests by hand
// (half-sent bodies, client certificates) where fetch cannot.
import type { IncomingMessage } from 'node:http';

export interface Answer {
  status: number;
  text: string;
}

/** A response callback for http(s).request that resolves with the whole answer. */
export function collectAnswer(resolve: (answer: Answer) => void): (res: IncomingMessage) => void {
  return (res) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (text += chunk));
    res.on('end', () => {
      resolve({ status: res.statusCode ?? 0, text });
    });
  };
}
