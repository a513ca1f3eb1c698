import { packageBuild } from '../../scripts/build/tsup-package';

export default packageBuild({
  index: 'src/index.ts',
  testing: 'src/testing/index.ts',
  'simulator-bin': 'src/testing/simulator-bin.ts',
});
