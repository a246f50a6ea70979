package dev.pacer.agent;

/**
 * The entry point wrapper of every pacer image: a start-up failure (a busy port, a bad option) prints one line that
 * names the cause and exits with code 1, instead of leaving a half-started JVM alive on the agent's threads.
 */
public final class Launch {
    /** The body of a main method. */
    @FunctionalInterface
    public interface Body {
        void run() throws Exception;
    }

    private Launch() {
    }

    public static void run(String name, Body body) {
        try {
            body.run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable e) {
            System.err.println("pacer " + name + ": cannot start: " + describe(e));
            e.printStackTrace();
            System.exit(1);
        }
    }

    /** The message chain, e.g. {@code IOException: Failed to bind to 0.0.0.0:8080 <- BindException: Address already in use}. */
    static String describe(Throwable e) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (!text.isEmpty()) {
                text.append(" <- ");
            }
            text.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
        }
        return text.toString();
    }
}
