package dev.pacer.engine.report;

import dev.pacer.api.BenchmarkSuiteStatus;

/** The report's package-private formatting, for the suite tests of another package. */
public final class SuiteReportAccess {
    private SuiteReportAccess() {
    }

    public static String sustained(BenchmarkSuiteStatus.ServerSummary server) {
        return SuiteReport.sustained(server);
    }
}
