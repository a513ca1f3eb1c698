import { packageBuild } from '../../scripts/build/tsup-package';

export default packageBuild({
  index: 'src/index.ts',
  'reference-receiver/index': 'src/reference-receiver/index.ts',
  'conformance/index': 'src/conformance/index.ts',
  reconcile: 'src/reconcile-entry.ts',
});
