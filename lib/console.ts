import * as path from 'node:path';
import { ArnFormat, Aws, Duration, Fn, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { type CfnStage, HttpApi, HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  OriginRequestPolicy,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import {
  AccountRecovery,
  CfnUserPoolGroup,
  FeaturePlan,
  Mfa,
  OAuthScope,
  StandardThreatProtectionMode,
  UserPool,
  type UserPoolClient,
  type UserPoolDomain,
} from 'aws-cdk-lib/aws-cognito';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { tenantGroupName } from '../functions/console/authz';
import type { ConsoleCatalog } from '../functions/console/catalog-view';
import { CONSOLE_CATALOG_GLOBAL } from '../functions/console/config';
import { contentSecurityPolicy, HSTS_MAX_AGE_SECONDS } from '../functions/console/headers';
import { SCENARIO_STATE_MACHINES_ENV } from '../functions/console/run-starter';
import { CONSOLE_ROLE_PATH, CONSOLE_TENANT_ROLE_ENV } from '../functions/console/tenant-sessions';
import { TENANT_TAG } from '../functions/runtime/aws/trust';
import { acknowledgeConsoleFindings } from './console-acknowledgments';
import { grantConsoleTenantData } from './console-tenant-data';
import { acknowledgeWildcardResources } from './nag';
import { type FunctionSettings, PlatformFunction } from './platform-function';
import type { RunWorkspaceBucket } from './run-workspace-bucket';
import { vendedTenantRole } from './tenant-secret-readers';

const CONSOLE_ENTRY = path.join(__dirname, '../functions/console/handler.ts');
/** The page's files: one HTML file, one script, one stylesheet, an icon (no build step). */
export const CONSOLE_WEB_DIR = path.join(__dirname, '../functions/console/web');

/** What an operator chooses about the console (`ExternalToolsPlatformProps.console`). */
export interface ConsoleOptions {
  /**
   * The tenants people sign in for: one Cognito group `tenant-<id>` each. A user
   * sees and changes only the tenants their groups name; add users to groups in
   * the user pool. @default - no groups (create them in the pool)
   */
  readonly tenants?: readonly string[];
  /**
   * The prefix of the Cognito domain (`<prefix>.auth.<region>.amazoncognito.com`),
   * unique in the Region. @default `etp-console-<account id>`
   */
  readonly domainPrefix?: string;
  /**
   * Cognito threat protection (the Plus feature plan, billed per monthly active user):
   * compromised-credential checks and adaptive authentication, enforced. @default true
   */
  readonly threatProtection?: boolean;
  /** The distribution's own names and their certificate (us-east-1). @default - the CloudFront domain */
  readonly domainNames?: readonly string[];
  readonly certificate?: ICertificate;
  /** An AWS WAF web ACL (its ARN, scope CLOUDFRONT) in front of the distribution. @default - none */
  readonly webAclArn?: string;
  /** Overrides for the API function. @default - the platform's function settings */
  readonly functionSettings?: FunctionSettings;
}

/** What the console is built on: the platform's stores. */
export interface ConsoleProps extends ConsoleOptions {
  readonly catalog: ConsoleCatalog;
  readonly secretReferenceTable: ITable;
  readonly runRecordsTable: ITable;
  readonly runWorkspace: RunWorkspaceBucket;
  /** The scenarios' state machines: the API answers their questions (SendTaskSuccess). */
  readonly stateMachines: Readonly<Record<string, StateMachine>>;
  readonly logRetention?: RetentionDays;
}

/**
 * The web console, deployed: the page's files in a private S3 bucket served by
 * CloudFront through origin access control, with strict security headers; the
 * API (`/api/*`, same origin) on an HTTP API whose JWT authorizer accepts the
 * user pool's ID tokens, in front of one Lambda whose role reads secret
 * references (never values), workspaces and questions and answers questions;
 * sign-in through a Cognito user pool (authorization code with PKCE, MFA
 * required, no self sign-up) with one group per tenant.
 *
 * @throws Error when a tenant id is not one, or its group name would exceed Cognito's 128 characters.
 */
export class PlatformConsole extends Construct {
  public readonly userPool: UserPool;
  public readonly userPoolClient: UserPoolClient;
  public readonly userPoolDomain: UserPoolDomain;
  /** The API function (functions/console/handler.ts). */
  public readonly api: PlatformFunction;
  /** The role whose `etp-tenant`-tagged sessions are the API's only way to a tenant's references, runs, questions and secrets' tags. */
  public readonly tenantRole: Role;
  public readonly httpApi: HttpApi;
  /** The page's private bucket. */
  public readonly assetsBucket: Bucket;
  public readonly distribution: Distribution;
  /** `https://<distribution>/`: the console's address. */
  public readonly url: string;

  constructor(scope: Construct, id: string, props: ConsoleProps) {
    super(scope, id);
    const groups = (props.tenants ?? []).map(tenantGroupName);
    const threatProtection = props.threatProtection ?? true;

    this.userPool = new UserPool(this, 'Users', {
      selfSignUpEnabled: false,
      signInAliases: { username: true, email: true },
      mfa: Mfa.REQUIRED,
      mfaSecondFactor: { otp: true, sms: false },
      passwordPolicy: {
        minLength: 14,
        requireDigits: true,
        requireLowercase: true,
        requireUppercase: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      featurePlan: threatProtection ? FeaturePlan.PLUS : FeaturePlan.ESSENTIALS,
      ...(threatProtection
        ? { standardThreatProtectionMode: StandardThreatProtectionMode.FULL_FUNCTION }
        : {}),
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    if (!threatProtection) {
      Validations.of(this.userPool).acknowledge({
        id: 'AwsSolutions-COG3',
        reason:
          'The operator turned threat protection off (threatProtection: false): it needs the billed Plus plan.',
      });
    }
    for (const [index, group] of groups.entries()) {
      new CfnUserPoolGroup(this, `TenantGroup${index}`, {
        userPoolId: this.userPool.userPoolId,
        groupName: group,
        description: `Sees and changes tenant ${group.slice('tenant-'.length)} in the console`,
      });
    }
    this.userPoolDomain = this.userPool.addDomain('Domain', {
      cognitoDomain: { domainPrefix: props.domainPrefix ?? Fn.join('-', ['etp-console', Aws.ACCOUNT_ID]) },
    });

    this.assetsBucket = new Bucket(this, 'Assets', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      serverAccessLogsBucket: props.runWorkspace.accessLogsBucket,
      serverAccessLogsPrefix: 'console-assets/',
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: false,
    });

    this.api = new PlatformFunction(this, 'Api', {
      entry: CONSOLE_ENTRY,
      description: 'External Tools Platform console API: secret references, runs, questions, tools',
      timeoutSeconds: 29,
      memorySizeMb: 512,
      environment: {
        POWERTOOLS_SERVICE_NAME: 'console',
        SECRET_REFS_TABLE: props.secretReferenceTable.tableName,
        RUN_RECORDS_TABLE: props.runRecordsTable.tableName,
        RUN_BUCKET: props.runWorkspace.bucket.bucketName,
        [SCENARIO_STATE_MACHINES_ENV]: Stack.of(this).toJsonString(
          Object.fromEntries(
            Object.entries(props.stateMachines).map(([name, machine]) => [name, machine.stateMachineArn]),
          ),
        ),
      },
      bundledDefinitions: { [CONSOLE_CATALOG_GLOBAL]: JSON.stringify(props.catalog) },
      logRetention: props.logRetention,
      settings: props.functionSettings,
      rolePath: CONSOLE_ROLE_PATH,
    });
    this.tenantRole = vendedTenantRole(
      this,
      'TenantRole',
      `The console's reach into one tenant's secret references, runs and questions: the tenant of the session tag ${TENANT_TAG}`,
      [CONSOLE_ROLE_PATH],
    );
    grantConsoleTenantData(this, props, this.tenantRole);
    this.grantApi(props);

    this.httpApi = new HttpApi(this, 'HttpApi', {
      description: 'External Tools Platform console API (behind the console distribution)',
      createDefaultStage: true,
    });
    const accessLogs = new LogGroup(this, 'ApiAccessLogs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const stage = this.httpApi.defaultStage?.node.defaultChild as CfnStage;
    stage.accessLogSettings = {
      destinationArn: accessLogs.logGroupArn,
      format: JSON.stringify({
        requestId: '$context.requestId',
        ip: '$context.identity.sourceIp',
        user: '$context.authorizer.claims.username',
        method: '$context.httpMethod',
        path: '$context.path',
        status: '$context.status',
        latencyMs: '$context.responseLatency',
      }),
    };
    stage.defaultRouteSettings = { throttlingBurstLimit: 50, throttlingRateLimit: 20 };

    const domainHost = Fn.select(2, Fn.split('/', this.httpApi.apiEndpoint));
    const headers = new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: 'External Tools Platform console: strict CSP and security headers',
      securityHeadersBehavior: {
        contentSecurityPolicy: {
          contentSecurityPolicy: contentSecurityPolicy([this.userPoolDomain.baseUrl()]),
          override: true,
        },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.seconds(HSTS_MAX_AGE_SECONDS),
          includeSubdomains: true,
          preload: true,
          override: true,
        },
        xssProtection: { protection: true, modeBlock: true, override: true },
      },
      customHeadersBehavior: {
        customHeaders: [
          { header: 'Cross-Origin-Opener-Policy', value: 'same-origin', override: true },
          { header: 'Permissions-Policy', value: 'camera=(), microphone=(), geolocation=()', override: true },
          { header: 'Cache-Control', value: 'no-store', override: false },
        ],
      },
    });
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'External Tools Platform console',
      defaultRootObject: 'index.html',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.assetsBucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        responseHeadersPolicy: headers,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
      },
      additionalBehaviors: {
        '/api/*': {
          origin: new HttpOrigin(domainHost),
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: headers,
        },
      },
      ...(props.certificate
        ? {
            certificate: props.certificate,
            domainNames: [...(props.domainNames ?? [])],
            minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
          }
        : {}),
      ...(props.webAclArn ? { webAclId: props.webAclArn } : {}),
    });
    const host = props.domainNames?.[0] ?? this.distribution.distributionDomainName;
    this.url = `https://${host}/`;

    this.userPoolClient = this.userPool.addClient('Page', {
      generateSecret: false,
      authFlows: {},
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL],
        callbackUrls: [this.url],
        logoutUrls: [this.url],
      },
      preventUserExistenceErrors: true,
      idTokenValidity: Duration.hours(1),
      accessTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.hours(8),
    });
    const authorizer = new HttpJwtAuthorizer(
      'CognitoIdToken',
      `https://cognito-idp.${Stack.of(this).region}.amazonaws.com/${this.userPool.userPoolId}`,
      { jwtAudience: [this.userPoolClient.userPoolClientId] },
    );
    this.httpApi.addRoutes({
      path: '/api/{proxy+}',
      methods: [HttpMethod.GET, HttpMethod.PUT, HttpMethod.POST, HttpMethod.DELETE],
      integration: new HttpLambdaIntegration('Api', this.api.lambdaFunction),
      authorizer,
    });

    new BucketDeployment(this, 'Page', {
      destinationBucket: this.assetsBucket,
      sources: [
        Source.asset(CONSOLE_WEB_DIR),
        Source.jsonData('config.json', {
          auth: 'cognito',
          domain: this.userPoolDomain.baseUrl(),
          clientId: this.userPoolClient.userPoolClientId,
          redirectUri: this.url,
        }),
      ],
      distribution: this.distribution,
      distributionPaths: ['/*'],
      prune: true,
    });
    acknowledgeConsoleFindings(this.distribution, props);
  }

  /**
   * The API function's own rights: tenant-tagged sessions of the console tenant
   * role (AssumeRole, TagSession, SetSourceIdentity on it; nothing of the tables,
   * the bucket or the secrets), no secret value (an explicit Deny on
   * GetSecretValue), answers to questions (SendTaskSuccess on the scenarios'
   * state machines), runs started from the page (StartExecution on those state
   * machines) and their events (GetExecutionHistory on their executions).
   */
  private grantApi(props: ConsoleProps): void {
    const role = this.api.role;
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['sts:AssumeRole', 'sts:TagSession', 'sts:SetSourceIdentity'],
        resources: [this.tenantRole.roleArn],
      }),
    );
    this.api.lambdaFunction.addEnvironment(CONSOLE_TENANT_ROLE_ENV, this.tenantRole.roleArn);
    role.addToPrincipalPolicy(
      new PolicyStatement({
        effect: Effect.DENY,
        actions: ['secretsmanager:GetSecretValue', 'secretsmanager:BatchGetSecretValue'],
        resources: ['*'],
      }),
    );
    const executions: string[] = [];
    for (const stateMachine of Object.values(props.stateMachines)) {
      stateMachine.grantTaskResponse(role);
      // Runs started from the page: StartExecution on the scenarios' own state machines only.
      stateMachine.grantStartExecution(role);
      executions.push(
        Stack.of(this).formatArn({
          service: 'states',
          resource: 'execution',
          resourceName: `${stateMachine.stateMachineName}:*`,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      );
    }
    // The live page: each run's execution history (its events), nothing else of the execution.
    role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['states:GetExecutionHistory'], resources: executions }),
    );
    acknowledgeWildcardResources(
      role,
      executions,
      "Executions are named by run id at run time; the console reads the history of the scenarios' own " +
        'executions (GetExecutionHistory only) for the live page.',
    );
  }
}
