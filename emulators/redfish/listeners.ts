// The emulator's TCP listeners on 127.0.0.1: the shared one, and with `portPerSystem` one more per
// system, so each emulated host has a BMC endpoint of its own as in a real rack (a client that
// serialises calls per BMC endpoint then queues per host, not all hosts behind one line). Every
// listener serves every path; a host's address names its own port. Cut and re-listen together.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

interface Listener {
  readonly server: Server;
  port: number;
}

async function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

export class Listeners {
  private readonly listeners: Listener[] = [];
  private readonly bySystem = new Map<string, Listener>();
  private readonly sockets = new Set<Socket>();

  constructor(private readonly create: () => Server) {}

  /** Listens on `port` (0: any free one); with `system`, this listener is that system's endpoint. */
  async add(port: number, system?: string): Promise<number> {
    const server = this.create();
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    const listener = { server, port: await listen(server, port) };
    this.listeners.push(listener);
    if (system !== undefined) this.bySystem.set(system, listener);
    return listener.port;
  }

  /** The port of a system's own endpoint, if it has one. */
  portOf(system: string): number | undefined {
    return this.bySystem.get(system)?.port;
  }

  /** Stops listening and cuts every open connection. */
  async cut(): Promise<void> {
    const closed = this.listeners.map(
      async ({ server }) =>
        new Promise<void>((resolve) => {
          server.close(() => {
            resolve();
          });
        }),
    );
    for (const socket of this.sockets) socket.destroy();
    await Promise.all(closed);
  }

  /** Listens again on the same ports. */
  async relisten(): Promise<void> {
    for (const listener of this.listeners) await listen(listener.server, listener.port);
  }
}
