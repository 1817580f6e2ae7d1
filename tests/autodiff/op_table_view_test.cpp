// Graph mode against eager mode in float64 over the op table's view ops (op_table.hpp): values,
// first and second derivatives (op_table_check.hpp).

#include "op_table_check.hpp"

TEST_CASE("op table, view ops: graph and eager agree in float64") {
    op_table::view_ops([](const auto& op) { op_table::check(op); });
}
