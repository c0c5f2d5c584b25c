import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.regex.Pattern;

// Reads lines "<hex pattern> <hex input>" (UTF-8) and prints 1 or 0: whether the pattern is
// found in the input, as Spark's RLIKE decides.
public class Probe {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        HexFormat hex = HexFormat.of();
        StringBuilder out = new StringBuilder();
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.split(" ", -1);
            String p = new String(hex.parseHex(f[0]), StandardCharsets.UTF_8);
            String s = new String(hex.parseHex(f[1]), StandardCharsets.UTF_8);
            try {
                out.append(Pattern.compile(p).matcher(s).find() ? "1\n" : "0\n");
            } catch (java.util.regex.PatternSyntaxException e) {
                out.append("E\n");
            }
        }
        System.out.print(out);
    }
}
