use std::io::BufRead;
fn main() {
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        if line.trim().is_empty() {
            continue;
        }
        let cmd = line.replace("\\n", "\n");
        let i = rbv_reference::classify::shell::inspect(&cmd, None);
        let b = rbv_reference::projection::project(i.reversibility, i.scope, i.trust);
        println!(
            "{:<9} {} {:<60} | {}",
            format!("{b}"),
            if i.touches_sensitive { "S" } else { "-" },
            line,
            i.reasons.join("; ")
        );
    }
}
