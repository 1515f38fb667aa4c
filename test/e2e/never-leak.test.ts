import { describeNeverLeak } from '../helpers/never-leak-suite';

// The never-leak suite (test/helpers/never-leak-suite.ts) with the secrets in Secrets Manager.
describeNeverLeak('secrets_manager');
