/** The official SDK v1 client resumes a stream our server closed mid-call (SEP-1699) and gets the result. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryEventStore, LocalSessionManager, McpServer } from '../../lib/index.js';
import { closeAfterEach, serve } from '../helpers/serve.js';

const track = closeAfterEach();

function pollingServer(): McpServer {
  const server = new McpServer({ name: 'polling', version: '1.0.0' });
  server.tool('slow_after_close', { description: 'Closes its stream, then answers' }, async (_args, ctx) => {
    ctx.progress(1, 3, 'before the close');
    ctx.closeSSEStream();
    await new Promise((resolve) => setTimeout(resolve, 150));
    ctx.progress(2, 3, 'while the client is away');
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { content: [{ type: 'text', text: 'finished after the reconnect' }] };
  });
  return server;
}

describe.each([
  ['without an EventStore', () => new LocalSessionManager()],
  ['with an InMemoryEventStore', () => new LocalSessionManager({ eventStore: new InMemoryEventStore() })],
])('SDK v1 client resume %s', (_label, manager) => {
  test('the client reconnects with Last-Event-ID and receives the rest of the stream', async () => {
    const served = track(await serve({ server: pollingServer(), sessionManager: manager(), sseRetry: 100, sseKeepAlive: 0 }));
    const lastEventIds: string[] = [];
    served.http.on('request', (req) => {
      const id = req.headers['last-event-id'];
      if (typeof id === 'string') lastEventIds.push(id);
    });
    const client = new Client({ name: 'resumer', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(served.url));
    await client.connect(transport);
    track(client);
    const progress: string[] = [];
    const result = await client.callTool({ name: 'slow_after_close', arguments: {} }, undefined, {
      onprogress: (update) => progress.push(String(update.message)),
    });
    expect(result.content).toEqual([{ type: 'text', text: 'finished after the reconnect' }]);
    expect(progress).toEqual(['before the close', 'while the client is away']);
    expect(lastEventIds.length).toBeGreaterThanOrEqual(1);
    await transport.terminateSession();
  });
});
