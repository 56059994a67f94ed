#!/usr/bin/env node
// The agentchart command: runs the compiled CLI in dist/ (built by `npm run build`, which `npm ci` runs
// through the `prepare` script), so starting it compiles nothing and needs no TypeScript loader.
// A reader that goes away (`agentchart --help | head -1`) ends the output, not in a crash: stop quietly
// with the code so far. Other stream errors stay errors.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error?.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}

let main;
try {
  ({ main } = await import('../dist/cli/main.js'));
} catch (error) {
  const missing =
    error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli/main.js');
  if (!missing) throw error;
  process.stderr.write(
    'agentchart: dist/ is not built; run `npm run build` in the agentchart folder [cli]\n',
  );
  process.exit(1);
}
process.exitCode = await main(process.argv.slice(2));
