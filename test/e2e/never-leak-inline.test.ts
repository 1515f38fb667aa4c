import { describeNeverLeak } from '../helpers/never-leak-suite';

// The never-leak suite (test/helpers/never-leak-suite.ts) with the same secrets sealed in the
// reference rows as inline values, a local KMS authorizing Decrypt as the key policy does.
describeNeverLeak('inline');
