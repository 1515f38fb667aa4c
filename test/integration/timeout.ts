// The integration suite runs real local servers, CLI runs and scenario runs on 127.0.0.1: a
// case that takes 1 s alone took more than Jest's 5 s default on a machine loaded by the
// rest of the suite (seen in CI). A case may still set its own, longer timeout.
jest.setTimeout(30_000);
