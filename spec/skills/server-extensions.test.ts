import { McpServer } from '../../lib/index.js';

describe('McpServer.declareExtension', () => {
  test('adds capabilities.extensions, merged with the extensions given in options.capabilities, and can withdraw one', () => {
    const server = new McpServer({ name: 's', version: '1' }, { capabilities: { extensions: { 'example.com/own': { level: 2 } } } });
    expect(server.capabilities().extensions).toEqual({ 'example.com/own': { level: 2 } });
    server.declareExtension('io.modelcontextprotocol/skills');
    expect(server.capabilities().extensions).toEqual({ 'io.modelcontextprotocol/skills': {}, 'example.com/own': { level: 2 } });
    expect(server.initializeResult('2025-11-25').capabilities).toMatchObject({ extensions: { 'io.modelcontextprotocol/skills': {} } });
    server.declareExtension('io.modelcontextprotocol/skills', null);
    expect(server.capabilities().extensions).toEqual({ 'example.com/own': { level: 2 } });
  });

  test('a server with no extension has no extensions key', () => {
    expect(new McpServer({ name: 's', version: '1' }).capabilities()).not.toHaveProperty('extensions');
  });
});

describe('McpServer.resourceProvider', () => {
  test('advertises resources, refuses a second provider for the same prefix, and stops when removed', () => {
    const server = new McpServer({ name: 's', version: '1' });
    expect(server.capabilities().resources).toBeUndefined();
    const provider = server.resourceProvider('skill://', { read: () => ({ contents: [] }) });
    expect(server.capabilities().resources).toEqual({ subscribe: true, listChanged: true });
    expect(() => server.resourceProvider('skill://', { read: () => ({ contents: [] }) })).toThrow(/already registered/);
    provider.remove();
    expect(server.capabilities().resources).toBeUndefined();
  });
});
