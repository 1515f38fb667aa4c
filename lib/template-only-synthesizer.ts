import {
  type DockerImageAssetLocation,
  type DockerImageAssetSource,
  type FileAssetLocation,
  type FileAssetSource,
  type ISynthesisSession,
  StackSynthesizer,
} from 'aws-cdk-lib';

/**
 * A stack synthesizer that needs nothing in the target account but
 * CloudFormation: the cloud assembly holds the template alone, with no asset
 * manifest, no bootstrap-version rule or check and no role to assume, so
 * `cdk deploy` passes the template inline with the caller's own credentials
 * (CloudFormation accepts a template body up to 51,200 bytes: AWS CloudFormation
 * User Guide, "CloudFormation quotas") and the same file deploys with `aws
 * cloudformation deploy` or as a StackSet. CDK's own synthesizers need the
 * bootstrap bucket for the template (`CliCredentialsStackSynthesizer`) or assume
 * the bootstrap's deploy role (`BootstraplessSynthesizer` defaults to it).
 *
 * @throws Error from `addFileAsset`/`addDockerImageAsset`: a construct that needs an
 *   asset (a bundled function, a file) cannot join such a stack.
 * @example new Stack(app, 'CustomerAccess', { synthesizer: new TemplateOnlySynthesizer() });
 */
export class TemplateOnlySynthesizer extends StackSynthesizer {
  override addFileAsset(asset: FileAssetSource): FileAssetLocation {
    throw new Error(
      `${this.boundStack.stackName} deploys without CDK bootstrap and holds no assets: remove the file asset ${asset.fileName ?? asset.sourceHash}`,
    );
  }

  override addDockerImageAsset(asset: DockerImageAssetSource): DockerImageAssetLocation {
    throw new Error(
      `${this.boundStack.stackName} deploys without CDK bootstrap and holds no assets: remove the image asset ${asset.directoryName ?? asset.sourceHash}`,
    );
  }

  override synthesize(session: ISynthesisSession): void {
    // Writes the template into the assembly; its file-asset description is not used: nothing is uploaded.
    this.synthesizeTemplate(session);
    this.emitArtifact(session);
  }
}
