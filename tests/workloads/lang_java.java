// tests/workloads/lang_java.java: a Java program for the perf map test (tests/tier_langs.py).
//
// LangJava.hotLoop runs SECS seconds (args[0], default 2) in one call, so
// HotSpot compiles it on the stack (OSR); with -XX:+DumpPerfMapAtExit the JVM
// names its compiled code in /tmp/perf-PID.map as it exits.
class LangJava {
    static int hotLoop(long ms) {
        long end = System.currentTimeMillis() + ms;
        int acc = 0;
        while (System.currentTimeMillis() < end)
            for (int i = 0; i < 100000; i++)
                acc = acc * 31 + i;
        return acc;
    }

    public static void main(String[] args) {
        long secs = args.length > 0 ? Long.parseLong(args[0]) : 2;
        System.out.println(hotLoop(secs * 1000));
    }
}
