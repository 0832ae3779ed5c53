fn main() -> std::process::ExitCode {
    gpulint::run_command_line()
}
