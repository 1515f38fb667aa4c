// A child process running s3rver on 127.0.0.1 for test/helpers/s3-server.ts.
// It runs apart from Jest because s3rver encrypts ListObjectsV2 continuation tokens
// with DES, which OpenSSL 3 (Node 17+) only offers with --openssl-legacy-provider:
// the parent starts this script with that flag, and no test process needs it.
// Argument: the storage directory. Prints {"port": n} once listening; exits when
// its standard input closes (the parent stopped or died) or on SIGTERM.
const S3rver = require('s3rver');

const [directory, bucket] = process.argv.slice(2);
const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory,
  configureBuckets: [{ name: bucket, configs: [] }],
});

async function stop() {
  server.httpServer?.closeAllConnections();
  await server.close();
  process.exit(0);
}

server.run().then(
  (address) => {
    process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
  },
  (err) => {
    process.stderr.write(`${err.stack ?? err}\n`);
    process.exit(1);
  },
);
process.stdin.on('end', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
