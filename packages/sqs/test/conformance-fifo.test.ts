import { describeSqsConformance } from './support/conformance-run';

describeSqsConformance('sqs fifo', true);
