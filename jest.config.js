/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/spec'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: { module: 'commonjs', moduleResolution: 'node', target: 'ES2022', esModuleInterop: true, strict: true, isolatedModules: true, types: ['node', 'jest'] } }],
    // ESM-only dev dependencies of the auth suites (jose, oauth2-mock-server), compiled to CommonJS for jest.
    '/node_modules/(jose|oauth2-mock-server|is-plain-obj)/.+\\.m?js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022', isolatedModules: true } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(jose|oauth2-mock-server|is-plain-obj)/)'],
  moduleNameMapper: {
    '^mcp-express$': '<rootDir>/lib/index.ts',
    '^mcp-express/(.*)$': '<rootDir>/lib/$1',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testTimeout: 20000,
};
