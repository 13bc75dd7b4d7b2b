/**
 * `tracing: true` when `@opentelemetry/api` cannot be loaded: one onError naming the package to install,
 * `ready()` still resolves, and requests are served untraced.
 */
import request from 'supertest';
import { McpServer } from '../../lib/index.js';
import { clientHeaders, initializeRequest } from '../helpers/http-helpers.js';
import { closeAfterEach, serve } from '../helpers/serve.js';

jest.mock('@opentelemetry/api', () => {
  throw new Error("Cannot find module '@opentelemetry/api'");
});

const track = closeAfterEach();

test('the missing package is reported once and requests are served', async () => {
  const errors: unknown[] = [];
  const served = track(await serve({ server: new McpServer({ name: 'untraced', version: '1.0.0' }), tracing: true, onError: (error) => errors.push(error) }));
  await served.middleware.ready();
  expect(errors).toEqual([expect.objectContaining({ message: expect.stringContaining('tracing: true needs the package @opentelemetry/api; install it') })]);
  const res = await request(served.url).post('').set(clientHeaders('2025-11-25')).send(initializeRequest('2025-11-25'));
  expect(res.status).toBe(200);
  expect(errors).toHaveLength(1);
});
