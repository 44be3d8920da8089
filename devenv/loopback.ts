// A plain HTTP server on 127.0.0.1 (the only address anything here may listen on), stopped by
// close(): the local image file servers of the environment and the tests.
import { once } from 'node:events';
import { createServer, type RequestListener } from 'node:http';

export interface LoopbackServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  close: () => Promise<void>;
}

export async function serveOnLoopback(handler: RequestListener, port = 0): Promise<LoopbackServer> {
  const server = createServer(handler);
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const url = `http://127.0.0.1:${String(typeof address === 'object' && address !== null ? address.port : 0)}`;
  const close = async (): Promise<void> => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
    });
  };
  return { url, close };
}
