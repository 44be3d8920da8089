// Real peers (sushy-tools, redfishtool, python3-sushy) are installed by the test command
// (scripts/test.sh, which sets IRONHOOK_REQUIRE_PEERS=1). Under it a missing peer is a broken
// install and fails the file; a developer running one file with vitest on a machine without the
// peer gets a skip that says what to install.

/** Whether the tests needing `peer` should be skipped; throws where peers are required. */
export function missingPeer(peer: { name: string; present: boolean; install: string }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (peer.present) return false;
  if (env.IRONHOOK_REQUIRE_PEERS === '1') {
    throw new Error(`${peer.name} is missing (${peer.install}): the test command installs it, so this is a broken install, not a skip`);
  }
  process.stderr.write(`skipping the ${peer.name} tests: ${peer.name} is missing (${peer.install})\n`);
  return true;
}
