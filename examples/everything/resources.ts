import type { McpServer } from 'mcp-express';
import { PIXEL_PNG_BASE64 } from './media';

/** Static resources, one resource clients can subscribe to, and a template. */
export function registerResources(server: McpServer): void {
  server.resource('static-text', 'test://static-text', { description: 'A fixed text resource', mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
  }));

  server.resource('static-binary', 'test://static-binary', { description: 'A fixed binary resource (a 1x1 PNG)', mimeType: 'image/png' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'image/png', blob: PIXEL_PNG_BASE64 }],
  }));

  server.resource(
    'watched-resource',
    'test://watched-resource',
    { description: 'A resource to subscribe to (resources/subscribe)', mimeType: 'text/plain' },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Watched resource content' }] }),
  );

  server.resourceTemplate(
    'template-data',
    'test://template/{id}/data',
    {
      description: 'JSON data for any id',
      mimeType: 'application/json',
      complete: { id: (value) => ['1', '2', '3', '123'].filter((id) => id.startsWith(value)) },
    },
    (uri, { id }) => ({
      contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }],
    }),
  );
}
