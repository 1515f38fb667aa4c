// Jest setup for every project: tests never reach a real AWS identity. The default
// credential chain finds these fake static keys (SDK clients are stubbed or point at
// 127.0.0.1), and never reads shared config files or instance metadata.
process.env.AWS_ACCESS_KEY_ID = 'test-fake-access-key-id';
process.env.AWS_SECRET_ACCESS_KEY = 'test-fake-secret-access-key';
delete process.env.AWS_SESSION_TOKEN;
delete process.env.AWS_PROFILE;
process.env.AWS_REGION = 'us-east-1';
process.env.AWS_CONFIG_FILE = '/nonexistent/aws-config';
process.env.AWS_SHARED_CREDENTIALS_FILE = '/nonexistent/aws-credentials';
process.env.AWS_EC2_METADATA_DISABLED = 'true';
