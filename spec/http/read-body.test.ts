/**
 * Reading the body: an upstream middleware that consumed the request stream without setting req.body leaves
 * nothing to read; the middleware answers 400 at once instead of waiting for an 'end' that already happened.
 */
import express from 'express';
import { ACCEPT_BOTH, type Harness, initializeRequest, startHarness } from '../helpers/http-helpers.js';

const HEADERS = { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' };

describe('POST after a middleware that consumed the body', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({}, (app: express.Express) => {
      app.use((req, _res, next) => {
        // e.g. a signature check that reads the raw body but does not keep it
        if (req.headers['x-consume'] === undefined) return next();
        req.on('data', () => undefined);
        req.on('end', () => next());
      });
    });
  });
  afterAll(() => h.close());

  test('→ 400 naming the cause, without hanging', async () => {
    const res = await h.api().post('/mcp').set({ ...HEADERS, 'X-Consume': '1' }).timeout(2000).send(initializeRequest('2025-11-25'));
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/consumed by another middleware/) } });
  });

  test('a request the middleware did not touch is read as usual', async () => {
    const res = await h.api().post('/mcp').set(HEADERS).timeout(2000).send(initializeRequest('2025-11-25'));
    expect(res.status).toBe(200);
  });
});
