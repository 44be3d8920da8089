/**
 * Layering: hooks are pure functions; they never reach
 * drivers, the Kubernetes client, BMC transports, clocks or randomness. Product tree vs dev
 * tree: domain/, platform/, hooks/ and drivers/ are what the images run; devenv/, emulators/,
 * scripts/, bench/ and test/ are not, and only test/ imports test/.
 */
const IO_MODULES = '^(@kubernetes/client-node|undici|node:child_process|child_process|node:net|net|node:dgram|dgram|node:tls|tls|node:http2)$';
module.exports = {
  forbidden: [
    {
      name: 'hooks-not-to-drivers',
      severity: 'error',
      comment: 'Hooks are pure: side effects go through request objects to the driver pool.',
      from: { path: '^hooks/' },
      to: { path: '^drivers/' },
    },
    {
      name: 'hooks-no-io-clients',
      severity: 'error',
      comment: 'Hooks never talk to Kubernetes or BMCs.',
      from: { path: '^hooks/' },
      to: { dependencyTypes: ['npm', 'core'], path: IO_MODULES },
    },
    {
      name: 'hook-logic-is-pure',
      severity: 'error',
      comment: 'Only hooks/server may use HTTP, logging and metrics; hook logic is request in, response out.',
      from: { path: '^hooks/', pathNot: '^hooks/(server/|main\\.ts)' },
      to: { dependencyTypes: ['npm', 'core'], path: '^(express|pino|prom-client|node:fs|fs|node:http|http|node:https|https|node:crypto|crypto)$' },
    },
    {
      name: 'hook-logic-not-to-platform',
      severity: 'error',
      comment: 'platform/ is process plumbing (logging) for the hook server and the pool, not for hook logic.',
      from: { path: '^hooks/', pathNot: '^hooks/(server/|main\\.ts)' },
      to: { path: '^platform/' },
    },
    {
      name: 'platform-is-shared',
      severity: 'error',
      comment: 'platform/ is imported by hooks/server and drivers alike; it imports neither.',
      from: { path: '^platform/' },
      to: { path: ['^hooks/', '^drivers/'] },
    },
    {
      name: 'domain-is-shared-and-pure',
      severity: 'error',
      comment: 'domain/ is imported by hooks and drivers alike; it imports neither and does no I/O.',
      from: { path: '^domain/' },
      to: { path: ['^hooks/', '^drivers/', '^(express|pino|prom-client|@kubernetes/client-node|undici)$'] },
    },
    {
      name: 'domain-no-node-builtins',
      severity: 'error',
      comment: 'domain/ runs in the hooks and the pool alike and does no I/O: no Node built-in but node:crypto (hashing, e.g. request names).',
      from: { path: '^domain/' },
      to: { dependencyTypes: ['core'], pathNot: '^(node:)?crypto$' },
    },
    {
      name: 'controllers-not-to-each-other',
      severity: 'error',
      comment:
        'A controller folder (hooks/<controller>/) imports its own files, hooks/kit/, the top-level hooks/*.ts and domain/, never another controller folder: what two controllers share goes into hooks/kit/ or domain/.',
      from: { path: '^hooks/([^/]+)/', pathNot: '^hooks/(kit|server)/' },
      to: { path: '^hooks/[^/]+/', pathNot: ['^hooks/$1/', '^hooks/(kit|server)/'] },
    },
    {
      name: 'kit-imports-only-domain',
      severity: 'error',
      comment:
        'hooks/kit/ is what every controller shares: it imports only itself and domain/ (no controller, no server, no hooks/*.ts, no npm or Node module).',
      from: { path: '^hooks/kit/' },
      to: { pathNot: '^(hooks/kit|domain)/' },
    },
    {
      name: 'drivers-not-to-hooks',
      severity: 'error',
      from: { path: '^drivers/' },
      to: { path: '^hooks/' },
    },
    {
      name: 'product-not-to-dev-trees',
      severity: 'error',
      comment:
        'dist/ (tsconfig.build.json) holds only what the images run: domain, platform, hooks and drivers. They never import the local environment, the emulators, tests, benchmarks or scripts, so tsc cannot pull those into the build.',
      from: { path: '^(domain|platform|hooks|drivers)/' },
      to: { path: '^(devenv|emulators|test|bench|scripts)/' },
    },
    {
      name: 'only-test-imports-test',
      severity: 'error',
      comment: 'test/ is the leaf: scripts/, bench/, devenv/ and emulators/ share code through devenv/ (and devenv/builders/), never through test/.',
      from: { pathNot: '^test/' },
      to: { path: '^test/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
