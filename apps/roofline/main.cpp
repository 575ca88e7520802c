// roofline's command line. The only place that exits; everything else throws.
#include "app/commands.hpp"

int main(int argc, char** argv) { return roofline::app::run_cli(argc, argv); }
